import Testing
@testable import DualCamProtocol

@Suite struct SessionFlowTests {
    @Test func prepareReadyStartStopFinish() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("sess-1")))
        try pair.pump()
        #expect(pair.agent.state == .established(.preparing(sessionID: "sess-1")))
        #expect(pair.agentEvents.last == .prepare(Envelopes.prepare("sess-1")))

        try pair.agentSends(.ready(Envelopes.ready("sess-1")))
        try pair.pump()
        #expect(pair.coordinator.state == .established(.ready(sessionID: "sess-1")))

        try pair.coordinatorSends(.startAt(Envelopes.startAt("sess-1")))
        try pair.pump()
        #expect(pair.agent.state == .established(.recording(sessionID: "sess-1")))

        try pair.coordinatorSends(.stop(Envelopes.stop("sess-1")))
        try pair.pump()
        #expect(pair.agent.state == .established(.stopping(sessionID: "sess-1")))

        try pair.agentSends(.recordingFinished(Envelopes.finished("sess-1", segments: 3)))
        try pair.pump()
        #expect(pair.agent.state == .established(.idle))
        #expect(pair.coordinator.state == .established(.idle))
        #expect(pair.coordinatorEvents.last == .recordingFinished(Envelopes.finished("sess-1", segments: 3)))
        #expect(pair.agentClosed == nil && pair.coordinatorClosed == nil)

        // And a second session on the same connection.
        try pair.coordinatorSends(.prepare(Envelopes.prepare("sess-2")))
        try pair.pump()
        #expect(pair.agent.state == .established(.preparing(sessionID: "sess-2")))
    }

    @Test func startAtBeforeReadyIsRefusedWithBadState() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("s")))
        try pair.pump()
        // The coordinator machine itself will not send it…
        #expect {
            _ = try pair.coordinator.send(.startAt(Envelopes.startAt("s")), now: pair.now)
        } throws: { ($0 as? ProtocolError)?.code == .badState }
        // …and an agent receiving it from a faulty coordinator refuses it.
        let actions = pair.agent.receive(Envelopes.envelope(.startAt(Envelopes.startAt("s")), sequence: 1000), now: pair.now)
        let error = try #require(actions.sentError())
        #expect(error.code == .errorBadState)
        #expect(error.message.contains("StartAt"))
        #expect(actions.sent().first?.inReplyTo == 1000)
        #expect(pair.agent.state == .closed)
    }

    @Test func startAtForAnotherSessionIsBadState() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("a")))
        try pair.pump()
        try pair.agentSends(.ready(Envelopes.ready("a")))
        try pair.pump()
        let actions = pair.agent.receive(Envelopes.envelope(.startAt(Envelopes.startAt("b")), sequence: 1000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadState)
    }

    @Test func startAtWithStopBeforeStartIsBadMessage() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("a")))
        try pair.pump()
        try pair.agentSends(.ready(Envelopes.ready("a")))
        try pair.pump()
        let actions = pair.agent.receive(
            Envelopes.envelope(.startAt(Envelopes.startAt("a", t0: 100, stop: 50)), sequence: 1000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadMessage)
    }

    @Test func prepareWhileRecordingIsBadState() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("a")))
        try pair.pump()
        let actions = pair.agent.receive(Envelopes.envelope(.prepare(Envelopes.prepare("b")), sequence: 1000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadState)
    }

    @Test func unsafeSessionIDsAreRefused() throws {
        var pair = MachinePair()
        try pair.connect()
        for bad in ["", "../etc", ".hidden", "a/b", String(repeating: "x", count: 65), "é"] {
            #expect(throws: ProtocolError.self, "\(bad)") {
                _ = try pair.coordinator.send(.prepare(Envelopes.prepare(bad)), now: pair.now)
            }
        }
        let actions = pair.agent.receive(Envelopes.envelope(.prepare(Envelopes.prepare("../x")), sequence: 1000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadMessage)
    }

    @Test func agentRefusingPrepareEndsTheSession() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("a")))
        try pair.pump()
        var refusal = Dualcam_V1_Error()
        refusal.code = .errorSourceFailed
        refusal.message = "/dev/video0: no such device"
        refusal.sessionID = "a"
        try pair.agentSends(.error(refusal))
        try pair.pump()
        #expect(pair.agent.state == .established(.idle))
        #expect(pair.coordinator.state == .established(.idle))
        #expect(pair.coordinatorEvents.last == .prepareFailed(refusal))
    }

    @Test func stopBeforeStartCancelsAndStillEndsWithRecordingFinished() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("a")))
        try pair.pump()
        try pair.coordinatorSends(.stop(Envelopes.stop("a")))
        try pair.pump()
        #expect(pair.agent.state == .established(.stopping(sessionID: "a")))
        try pair.agentSends(.recordingFinished(Envelopes.finished("a")))
        try pair.pump()
        #expect(pair.coordinator.state == .established(.idle))
    }

    @Test func stopThatCrossesRecordingFinishedIsIgnored() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("a")))
        try pair.pump()
        try pair.agentSends(.ready(Envelopes.ready("a")))
        try pair.pump()
        try pair.coordinatorSends(.startAt(Envelopes.startAt("a", t0: 1, stop: 2)))
        try pair.pump()
        // The agent ends on its own at stop_shared_ns while the coordinator sends Stop.
        try pair.agentSends(.recordingFinished(Envelopes.finished("a", segments: 1)))
        try pair.coordinatorSends(.stop(Envelopes.stop("a")))
        try pair.pump()
        #expect(pair.agent.state == .established(.idle))
        #expect(pair.coordinator.state == .established(.idle))
        #expect(pair.agentClosed == nil && pair.coordinatorClosed == nil)
    }

    @Test func readyTimeoutIsReportedOnce() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.prepare(Envelopes.prepare("a")))
        try pair.pump()
        for _ in 0..<20 {
            try pair.advance(by: 2_000_000_000)
            try pair.pump()
        }
        let timeouts = pair.coordinatorEvents.filter { $0 == .readyTimedOut(sessionID: "a") }
        #expect(timeouts.count == 1)
        #expect(pair.coordinator.state == .established(.preparing(sessionID: "a")))
    }

    @Test func agentMachineRefusesOutOfOrderSends() throws {
        var pair = MachinePair()
        try pair.connect()
        #expect(throws: ProtocolError.self) { try pair.agentSends(.ready(Envelopes.ready("a"))) }
        #expect(throws: ProtocolError.self) { try pair.agentSends(.recordingFinished(Envelopes.finished("a"))) }
        #expect(throws: ProtocolError.self) { try pair.agentSends(.stop(Envelopes.stop("a"))) }
        #expect(pair.agent.state == .established(.idle), "refused sends change nothing")
    }
}
