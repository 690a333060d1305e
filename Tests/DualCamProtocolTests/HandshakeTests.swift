import Testing
@testable import DualCamProtocol

@Suite struct HandshakeTests {
    @Test func helloAndHelloAckEstablishBothSides() throws {
        var pair = MachinePair()
        try pair.connect()
        #expect(pair.agent.state == .established(.idle))
        #expect(pair.coordinator.state == .established(.idle))
        guard case .connected(let hello)? = pair.agentEvents.first else { Issue.record("no connected event"); return }
        #expect(hello.version == WireProtocol.version)
        guard case .connected(let ack)? = pair.coordinatorEvents.first else { Issue.record("no connected event"); return }
        #expect(ack.version == WireProtocol.version)
        #expect(ack.nodeName == "pi-1")
    }

    @Test func agentRefusesHelloOfAnotherMajor() {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        let actions = agent.receive(Envelopes.envelope(.hello(Envelopes.hello(major: 2, minor: 1)), sequence: 1), now: 1)
        let error = actions.sentError()
        #expect(error?.code == .errorVersionMismatch)
        #expect(error?.fatal == true)
        #expect(error?.message.contains("2.1") == true)
        #expect(error?.message.contains("\(WireProtocol.major).\(WireProtocol.minor)") == true)
        #expect(actions.sent().first?.inReplyTo == 1)
        #expect(actions.closeError()??.code == .versionMismatch)
        #expect(agent.state == .closed)
        #expect(agent.receive(Envelopes.envelope(.hello(Envelopes.hello()), sequence: 2), now: 2).isEmpty)
    }

    @Test func coordinatorRefusesHelloAckOfAnotherMajor() {
        var c = CoordinatorConnectionStateMachine(configuration: .init(hello: Envelopes.hello()), now: 0)
        _ = c.start(now: 0)
        let actions = c.receive(Envelopes.envelope(.helloAck(Envelopes.helloAck(major: 0, minor: 9)), sequence: 1), now: 1)
        #expect(actions.sentError()?.code == .errorVersionMismatch)
        #expect(actions.sentError()?.message.contains("0.9") == true)
        #expect(c.state == .closed)
    }

    @Test func newerMinorIsAccepted() {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        let actions = agent.receive(Envelopes.envelope(.hello(Envelopes.hello(minor: 42)), sequence: 1), now: 1)
        #expect(actions.sent().first?.body.map { if case .helloAck = $0 { true } else { false } } == true)
        #expect(agent.state == .established(.idle))
    }

    @Test func anythingBeforeHelloIsBadState() {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        let actions = agent.receive(Envelopes.envelope(.prepare(Envelopes.prepare("s")), sequence: 1), now: 1)
        #expect(actions.sentError()?.code == .errorBadState)
        #expect(agent.state == .closed)
    }

    @Test func keepaliveAndUnknownBodiesAreFineBeforeHello() {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        #expect(agent.receive(Envelopes.envelope(.keepalive(.init()), sequence: 1), now: 1).isEmpty)
        var unknown = Dualcam_V1_Envelope()
        unknown.sequence = 2
        #expect(agent.receive(unknown, now: 2).isEmpty)
        #expect(agent.state == .awaitingHello)
    }

    @Test func secondHelloIsBadState() throws {
        var pair = MachinePair()
        try pair.connect()
        let actions = pair.agent.receive(Envelopes.envelope(.hello(Envelopes.hello()), sequence: 99), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadState)
    }

    @Test func handshakeTimesOut() {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        #expect(agent.nextDeadline == 2_000_000_000)  // keepalive first
        _ = agent.tick(now: 2_000_000_000)
        let actions = agent.tick(now: 5_000_000_000)
        #expect(actions.sentError()?.code == .errorTimeout)
        #expect(agent.state == .closed)
    }

    @Test func nonIncreasingSequenceIsBadMessage() throws {
        var pair = MachinePair()
        try pair.connect()
        let actions = pair.agent.receive(Envelopes.envelope(.keepalive(.init()), sequence: 1), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadMessage)
        #expect(pair.agent.state == .closed)
    }

    @Test func wrongDirectionMessagesAreBadMessage() throws {
        var pair = MachinePair()
        try pair.connect()
        let a = pair.agent.receive(Envelopes.envelope(.ready(Envelopes.ready("s")), sequence: 50), now: pair.now)
        #expect(a.sentError()?.code == .errorBadMessage)
        let c = pair.coordinator.receive(Envelopes.envelope(.startAt(Envelopes.startAt("s")), sequence: 50), now: pair.now)
        #expect(c.sentError()?.code == .errorBadMessage)
        #expect(throws: ProtocolError.self) { _ = try pair.coordinator.send(.ready(Envelopes.ready("s")), now: pair.now) }
    }

    @Test func fatalPeerErrorClosesQuietly() throws {
        var pair = MachinePair()
        try pair.connect()
        var e = Dualcam_V1_Error()
        e.code = .errorDiskFull
        e.fatal = true
        e.message = "disk full"
        let actions = pair.coordinator.receive(Envelopes.envelope(.error(e), sequence: 77), now: pair.now)
        #expect(actions.sent().isEmpty)
        #expect(actions.delivered() == [CoordinatorEvent.peerError(e)])
        #expect(actions.closeError()??.code == .peerError)
        #expect(pair.coordinator.state == .closed)
    }
}
