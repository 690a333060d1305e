import Testing
@testable import DualCamProtocol

/// Forgetting a deleted session (§17): asked by the coordinator outside that session's
/// phase, answered once by the agent, every session ID checked before it names a folder.
@Suite struct ForgetSessionTests {
    static func forget(_ session: String) -> Dualcam_V1_ForgetSession {
        var f = Dualcam_V1_ForgetSession()
        f.sessionID = session
        return f
    }

    static func forgotten(_ session: String, freed: UInt64 = 1_000, reason: String = "") -> Dualcam_V1_SessionForgotten {
        var f = Dualcam_V1_SessionForgotten()
        f.sessionID = session
        f.freedBytes = freed
        f.reason = reason
        return f
    }

    @Test func aRequestIsAnsweredOnAnIdleConnection() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.forgetSession(Self.forget("20261124_120000")))
        try pair.pump()
        #expect(pair.agentEvents.last == .forgetSession(Self.forget("20261124_120000")))
        try pair.agentSends(.sessionForgotten(Self.forgotten("20261124_120000")))
        try pair.pump()
        #expect(pair.coordinatorEvents.last == .sessionForgotten(Self.forgotten("20261124_120000")))
        #expect(pair.agent.state == .established(.idle) && pair.coordinator.state == .established(.idle))
    }

    /// A connection recording one session may forget another; the phase stays.
    @Test func anotherSessionIsForgottenWhileOneRecords() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("take-2")))
        try pair.pump()
        try pair.agentSends(.ready(Envelopes.ready("take-2")))
        try pair.pump()
        try pair.coordinatorSends(.startAt(Envelopes.startAt("take-2")))
        try pair.coordinatorSends(.forgetSession(Self.forget("take-1")))
        try pair.pump()
        try pair.agentSends(.sessionForgotten(Self.forgotten("take-1", freed: 0, reason: "it is recording this session now")))
        try pair.pump()
        #expect(pair.agent.state == .established(.recording(sessionID: "take-2")))
        #expect(pair.coordinator.state == .established(.recording(sessionID: "take-2")))
        #expect(pair.agentClosed == .none && pair.coordinatorClosed == .none)
    }

    /// The session of the connection's own phase is in use: the coordinator will not ask,
    /// and an agent asked anyway refuses and closes without acting.
    @Test(arguments: ["preparing", "ready", "recording", "stopping"])
    func theSessionOfTheConnectionsPhaseIsRefused(phase: String) throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("take-1")))
        try pair.pump()
        if phase != "preparing" {
            try pair.agentSends(.ready(Envelopes.ready("take-1")))
            try pair.pump()
        }
        if phase == "recording" || phase == "stopping" { try pair.coordinatorSends(.startAt(Envelopes.startAt("take-1"))) }
        if phase == "stopping" { try pair.coordinatorSends(.stop(Envelopes.stop("take-1"))) }
        try pair.pump()
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.forgetSession(Self.forget("take-1"))) }
        let actions = pair.agent.receive(Envelopes.envelope(.forgetSession(Self.forget("take-1")), sequence: 1_000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadState, "\(actions)")
        #expect(!actions.contains { if case .deliver = $0 { true } else { false } })
        #expect(pair.agent.state == .closed)
    }

    @Test(arguments: ["../x", "../../tmp/ESCAPED", "a/b", ".hidden", "", String(repeating: "a", count: 65), "tab\there", "é", "."])
    func aSessionIDThatIsNotASafeNameIsRefused(id: String) {
        var agent = HostileInputTests().establishedAgent()
        let actions = agent.receive(Envelopes.envelope(.forgetSession(Self.forget(id)), sequence: 2), now: 2)
        HostileInputTests().expectRefused(actions, agent, mentioning: "session_id")
        var pair = MachinePair()
        #expect(throws: Never.self) { try pair.connect() }
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.forgetSession(Self.forget(id))) }
    }

    @Test func anAnswerNobodyAskedForIsRefused() throws {
        var pair = MachinePair()
        try pair.connect()
        #expect(throws: ProtocolError.self) { try pair.agentSends(.sessionForgotten(Self.forgotten("take-1"))) }
        var unasked = Envelopes.envelope(.sessionForgotten(Self.forgotten("take-1")), sequence: 1_000)
        unasked.inReplyTo = 0
        let actions = pair.coordinator.receive(unasked, now: pair.now)
        #expect(actions.sentError()?.code == .errorBadState, "\(actions)")
        #expect(pair.coordinator.state == .closed)
    }

    /// A second answer to one request answers nothing.
    @Test func oneRequestGetsOneAnswer() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.forgetSession(Self.forget("take-1")))
        try pair.pump()
        try pair.agentSends(.sessionForgotten(Self.forgotten("take-1")))
        #expect(throws: ProtocolError.self) { try pair.agentSends(.sessionForgotten(Self.forgotten("take-1"))) }
        try pair.coordinatorSends(.forgetSession(Self.forget("take-2")))
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.forgetSession(Self.forget("take-2"))) }
    }

    @Test func aCoordinatorCannotPileUpRequests() {
        var agent = HostileInputTests().establishedAgent()
        var actions: [AgentConnectionStateMachine.Action] = []
        for i in 0...ForgetRequests.maxOutstanding {
            actions = agent.receive(Envelopes.envelope(.forgetSession(Self.forget("take-\(i)")), sequence: UInt64(i) + 2), now: 2)
        }
        #expect(actions.sentError()?.code == .errorFlowControl, "\(actions)")
        #expect(agent.state == .closed)
    }

    @Test func anAnswerOutOfRangeIsRefused() throws {
        let bad = [Self.forgotten("../x"), Self.forgotten("take-1", freed: UInt64.max),
                   Self.forgotten("take-1", reason: String(repeating: "x", count: WireSentences.maxBytes + 1))]
        for answer in bad {
            var pair = MachinePair()
            try pair.connect()
            try pair.coordinatorSends(.forgetSession(Self.forget("take-1")))
            let actions = pair.coordinator.receive(Envelopes.envelope(.sessionForgotten(answer), sequence: 1_000), now: pair.now)
            #expect(actions.sentError()?.code == .errorBadMessage, "\(actions)")
            #expect(pair.coordinator.state == .closed)
        }
    }

    /// The reason is shown to the operator: control bytes never reach a terminal.
    @Test func theReasonArrivesPrintable() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.forgetSession(Self.forget("take-1")))
        try pair.pump()
        try pair.agentSends(.sessionForgotten(Self.forgotten("take-1", freed: 0, reason: "busy\u{1b}[2J\nforged line")))
        try pair.pump()
        #expect(pair.coordinatorEvents.last == .sessionForgotten(Self.forgotten("take-1", freed: 0, reason: "busy?[2J?forged line")))
    }

    @Test func eachSideRefusesToSendTheOthersMessage() throws {
        var pair = MachinePair()
        try pair.connect()
        #expect(throws: ProtocolError.self) { try pair.agentSends(.forgetSession(Self.forget("take-1"))) }
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.sessionForgotten(Self.forgotten("take-1"))) }
        let actions = pair.agent.receive(Envelopes.envelope(.sessionForgotten(Self.forgotten("take-1")), sequence: 1_000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadMessage)
    }

    @Test func beforeTheHandshakeItIsRefused() throws {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        let actions = agent.receive(Envelopes.envelope(.forgetSession(Self.forget("take-1")), sequence: 1), now: 1)
        #expect(actions.sentError()?.code == .errorBadState)
        #expect(agent.state == .closed)
    }
}
