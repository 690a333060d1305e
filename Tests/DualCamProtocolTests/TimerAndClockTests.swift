import DualCamCore
import Testing
@testable import DualCamProtocol

@Suite struct TimerAndClockTests {
    @Test func keepalivesKeepAnIdleConnectionAlive() throws {
        var pair = MachinePair()
        try pair.connect()
        for _ in 0..<60 {  // a minute of silence apart from keepalives
            try pair.advance(by: 1_000_000_000)
            try pair.pump()
        }
        #expect(pair.agentClosed == nil && pair.coordinatorClosed == nil)
        #expect(pair.agent.state == .established(.idle))
    }

    @Test func keepaliveSentAfterTwoSecondsOfNothingSent() {
        var c = CoordinatorConnectionStateMachine(configuration: .init(hello: Envelopes.hello()), now: 0)
        _ = c.start(now: 0)
        #expect(c.tick(now: 1_999_999_999).isEmpty)
        let actions = c.tick(now: 2_000_000_000)
        guard case .keepalive(let k)? = actions.sent().first?.body else { Issue.record("no keepalive"); return }
        #expect(k.sentNs == 2_000_000_000)
        #expect(c.nextDeadline == 4_000_000_000)
    }

    @Test func silentPeerDroppedAfterTenSeconds() throws {
        var pair = MachinePair()
        try pair.connect()
        let start = pair.now
        // The coordinator goes silent: only the agent's timers run.
        var actions: [AgentConnectionStateMachine.Action] = []
        var t = start
        while pair.agent.state != .closed {
            t = pair.agent.nextDeadline!
            actions = pair.agent.tick(now: t)
        }
        #expect(t - start == 10_000_000_000)
        #expect(actions.sentError()?.code == .errorTimeout)
        #expect(actions.closeError()??.code == .timeout)
    }

    @Test func clockPingIsAnsweredAndBecomesASample() throws {
        var pair = MachinePair()
        try pair.connect()
        var ping = Dualcam_V1_ClockPing()
        ping.id = 1
        ping.t1Ns = 500
        try pair.agentSends(.clockPing(ping))
        // Deliver the ping at coordinator time 10_000, the pong at agent time 900.
        var decoder = EnvelopeFrameDecoder()
        let pingEnvelope = try #require(try decoder.decode(buffer: &pair.toCoordinator))
        let reply = pair.coordinator.receive(pingEnvelope, now: 10_000)
        let pongEnvelope = try #require(reply.sent().first)
        #expect(pongEnvelope.inReplyTo == pingEnvelope.sequence)
        let events = pair.agent.receive(pongEnvelope, now: 900).delivered()
        #expect(events == [.clockSample(ClockSample(t1: 500, t2: 10_000, t3: 10_000, t4: 900))])
    }

    @Test func pongForAnUnknownPingIsIgnoredAndT1ComesFromTheEcho() throws {
        var pair = MachinePair()
        try pair.connect()
        var pong = Dualcam_V1_ClockPong()
        pong.id = 77
        #expect(pair.agent.receive(Envelopes.envelope(.clockPong(pong), sequence: 100), now: pair.now).isEmpty)
        var ping = Dualcam_V1_ClockPing()
        ping.id = 1
        ping.t1Ns = 123
        _ = try pair.agent.send(.clockPing(ping), now: pair.now)
        // The transport restamped t1 to 130 on the way out; the echo carries that.
        pong.id = 1
        pong.t1Ns = 130
        pong.t2Ns = 500
        pong.t3Ns = 510
        let actions = pair.agent.receive(Envelopes.envelope(.clockPong(pong), sequence: 101), now: 200)
        #expect(actions.delivered() == [AgentEvent.clockSample(ClockSample(t1: 130, t2: 500, t3: 510, t4: 200))])
        // A second pong for the same ping is a duplicate and ignored.
        #expect(pair.agent.receive(Envelopes.envelope(.clockPong(pong), sequence: 102), now: 201).isEmpty)
    }

    @Test func clockPingIdsMustIncrease() throws {
        var pair = MachinePair()
        try pair.connect()
        var ping = Dualcam_V1_ClockPing()
        ping.id = 5
        _ = try pair.agent.send(.clockPing(ping), now: pair.now)
        #expect(throws: ProtocolError.self) { _ = try pair.agent.send(.clockPing(ping), now: pair.now) }
    }
}
