import Testing
@testable import DualCamProtocol

/// Every field a peer sends is checked before anything acts on it: values that once
/// reached a path, an integer conversion or the status line unchecked are refused with
/// the spec's error (§6, §10), fatal, and the connection closes; nothing is delivered.
@Suite struct HostileInputTests {
    /// An agent machine past its handshake, and the next sequence the coordinator uses.
    func establishedAgent() -> AgentConnectionStateMachine {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        _ = agent.receive(Envelopes.envelope(.hello(Envelopes.hello()), sequence: 1), now: 1)
        return agent
    }

    func expectRefused(_ actions: [AgentConnectionStateMachine.Action], _ agent: AgentConnectionStateMachine,
                       mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actions.sentError()?.code == .errorBadMessage, sourceLocation: sourceLocation)
        #expect(actions.sentError()?.fatal == true, sourceLocation: sourceLocation)
        #expect(actions.sentError()?.message.contains(text) == true, "\(actions.sentError()?.message ?? "")",
                sourceLocation: sourceLocation)
        #expect(!actions.contains { if case .deliver = $0 { true } else { false } }, "nothing reaches the agent",
                sourceLocation: sourceLocation)
        #expect(agent.state == .closed, sourceLocation: sourceLocation)
    }

    @Test(arguments: ["../x", "../../tmp/ESCAPED", "a/b", ".hidden", "", String(repeating: "a", count: 65), "tab\there", "é"])
    func aSessionIDThatIsNotASafeNameIsRefused(id: String) {
        var agent = establishedAgent()
        let actions = agent.receive(Envelopes.envelope(.prepare(Envelopes.prepare(id)), sequence: 2), now: 2)
        expectRefused(actions, agent, mentioning: "session_id")
    }

    @Test func unsafeSessionIDsAreRefusedInEveryMessageThatCarriesOne() {
        let bad = "../../etc"
        var request = Dualcam_V1_SegmentRequest()
        request.sessionID = bad
        var ack = Dualcam_V1_SegmentAck()
        ack.sessionID = bad
        var resume = Dualcam_V1_Resume()
        resume.sessionID = bad
        var stop = Dualcam_V1_Stop()
        stop.sessionID = bad
        stop.stopSharedNs = 1
        for body: Dualcam_V1_Envelope.OneOf_Body in [.segmentRequest(request), .segmentAck(ack), .resume(resume), .stop(stop),
                                                     .startAt(Envelopes.startAt(bad))] {
            var agent = establishedAgent()
            expectRefused(agent.receive(Envelopes.envelope(body, sequence: 2), now: 2), agent, mentioning: "session_id")
        }
    }

    @Test func anOverLongOrForgedNodeNameInHelloIsRefused() {
        for name in [String(repeating: "n", count: 65), "laptop\nFAKE journal line", ""] {
            var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
            var hello = Envelopes.hello()
            hello.nodeName = name
            let actions = agent.receive(Envelopes.envelope(.hello(hello), sequence: 1), now: 1)
            expectRefused(actions, agent, mentioning: "node_name")
        }
    }

    @Test func aWrongSequenceNumberIsRefused() {
        var agent = establishedAgent()
        _ = agent.receive(Envelopes.envelope(.prepare(Envelopes.prepare("s1")), sequence: 5), now: 2)
        let actions = agent.receive(Envelopes.envelope(.keepalive(.init()), sequence: 5), now: 3)
        expectRefused(actions, agent, mentioning: "sequence")
    }

    @Test func integersThatWouldTrapAreRefused() {
        var request = Dualcam_V1_SegmentRequest()
        request.sessionID = "s1"
        request.offset = 1 << 63
        var agent = establishedAgent()
        expectRefused(agent.receive(Envelopes.envelope(.segmentRequest(request), sequence: 2), now: 2), agent, mentioning: "offset")

        var prepare = Envelopes.prepare("s1")
        prepare.video.bitrate = 1 << 63
        agent = establishedAgent()
        expectRefused(agent.receive(Envelopes.envelope(.prepare(prepare), sequence: 2), now: 2), agent, mentioning: "bitrate")

        prepare = Envelopes.prepare("s1")
        prepare.video.fpsNum = 4_000_000_000
        prepare.video.fpsDen = 1
        agent = establishedAgent()
        expectRefused(agent.receive(Envelopes.envelope(.prepare(prepare), sequence: 2), now: 2), agent, mentioning: "frame rate")

        var ack = Dualcam_V1_SegmentAck()
        ack.sessionID = "s1"
        ack.index = .max
        agent = establishedAgent()
        expectRefused(agent.receive(Envelopes.envelope(.segmentAck(ack), sequence: 2), now: 2), agent, mentioning: "index")
    }

    @Test func startInstantsThatWouldOverflowAreRefused() {
        for (t0, stop) in [(Int64.min, Int64.max), (Int64(5_000_000_000), Int64.max), (Int64(-1), Int64(0))] {
            var agent = establishedAgent()
            _ = agent.receive(Envelopes.envelope(.prepare(Envelopes.prepare("s1")), sequence: 2), now: 2)
            var ready = Dualcam_V1_Ready()
            ready.sessionID = "s1"
            _ = try? agent.send(.ready(ready), now: 3)
            let actions = agent.receive(Envelopes.envelope(.startAt(Envelopes.startAt("s1", t0: t0, stop: stop)), sequence: 3), now: 4)
            expectRefused(actions, agent, mentioning: "shared clock")
        }
    }

    /// An agent's sentences for the operator (Ready's warnings, RecordingFinished's notes)
    /// are a few of a readable length; a sender cuts its own to fit.
    @Test func anAgentsSentencesAreBounded() throws {
        var ready = Envelopes.ready("s1")
        ready.warnings = ["no sound: microphone hw:9,0 failed"]
        try MessageValidation.checkReady(ready)
        ready.warnings = Array(repeating: "x", count: WireSentences.maxCount + 1)
        #expect(throws: ProtocolError.self) { try MessageValidation.checkReady(ready) }
        ready.warnings = [String(repeating: "é", count: WireSentences.maxBytes)]
        #expect(throws: ProtocolError.self) { try MessageValidation.checkReady(ready) }
        ready.warnings = WireSentences.fitted(ready.warnings + Array(repeating: "y", count: 40))
        try MessageValidation.checkReady(ready)
        #expect(ready.warnings.count == WireSentences.maxCount && ready.warnings[0].hasPrefix("éé"))

        var finished = Dualcam_V1_RecordingFinished()
        finished.sessionID = "s1"
        finished.notes = [String(repeating: "n", count: WireSentences.maxBytes + 1)]
        #expect(throws: ProtocolError.self) { try MessageValidation.checkRecordingFinished(finished) }
    }

    /// The coordinator's side: an agent's numbers go to the status line and the manifest.
    @Test func anAgentsNonFiniteTelemetryOrClockIsRefused() {
        var telemetry = Dualcam_V1_Telemetry()
        telemetry.audio = true
        telemetry.audioPeakDbfs = .nan
        var clock = Dualcam_V1_ClockStatus()
        clock.ratePpm = .infinity
        for body: Dualcam_V1_Envelope.OneOf_Body in [.telemetry(telemetry), .clockStatus(clock)] {
            var c = CoordinatorConnectionStateMachine(configuration: .init(hello: Envelopes.hello()), now: 0)
            _ = c.start(now: 0)
            _ = c.receive(Envelopes.envelope(.helloAck(Envelopes.helloAck()), sequence: 1), now: 1)
            let actions = c.receive(Envelopes.envelope(body, sequence: 2), now: 2)
            #expect(actions.sentError()?.code == .errorBadMessage)
            #expect(c.state == .closed)
        }
        var unknownTemperature = Dualcam_V1_Telemetry()
        unknownTemperature.cpuTemperatureC = .nan
        var c = CoordinatorConnectionStateMachine(configuration: .init(hello: Envelopes.hello()), now: 0)
        _ = c.start(now: 0)
        _ = c.receive(Envelopes.envelope(.helloAck(Envelopes.helloAck()), sequence: 1), now: 1)
        #expect(c.receive(Envelopes.envelope(.telemetry(unknownTemperature), sequence: 2), now: 2).sentError() == nil,
                "NaN is the protocol's 'unknown' for the temperature")
    }

    /// A peer's error text is shown and logged: its control bytes cannot forge lines.
    @Test func aPeersErrorTextIsMadePrintable() {
        var agent = establishedAgent()
        var error = Dualcam_V1_Error()
        error.message = "ok\n2026-01-01 FAKE: paired with attacker\u{1B}[2J"
        let actions = agent.receive(Envelopes.envelope(.error(error), sequence: 2), now: 2)
        guard case .deliver(.peerError(let delivered))? = actions.first else {
            Issue.record("not delivered: \(actions)")
            return
        }
        #expect(!delivered.message.contains("\n") && !delivered.message.contains("\u{1B}"))
    }

    @Test func resumeFollowsASessionAndHoldingNothingEndsIt() throws {
        var agent = establishedAgent()
        var resume = Dualcam_V1_Resume()
        resume.sessionID = "s1"
        _ = agent.receive(Envelopes.envelope(.resume(resume), sequence: 2), now: 2)
        #expect(agent.state == .established(.recording(sessionID: "s1")))
        var error = Dualcam_V1_Error()
        error.code = .errorSegmentUnavailable
        error.sessionID = "s1"
        _ = try agent.send(.error(error), now: 3)
        #expect(agent.state == .established(.idle))
        _ = agent.receive(Envelopes.envelope(.prepare(Envelopes.prepare("s2")), sequence: 3), now: 4)
        #expect(agent.state == .established(.preparing(sessionID: "s2")), "the next take can be prepared")
    }
}
