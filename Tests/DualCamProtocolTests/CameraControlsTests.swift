import DualCamCore
import Testing
@testable import DualCamProtocol

/// Camera controls over the wire (§18): asked at any phase, answered once per request,
/// every field bounded before the agent acts on it or a screen shows it.
@Suite struct CameraControlsTests {
    static func request(_ id: UInt64, set: [(String, String)] = [], zoom: Double? = nil) -> Dualcam_V1_CameraRequest {
        var change = CameraChange()
        change.settings = set.map { .init(name: $0.0, value: $0.1) }
        if let zoom { change.zoom = .init(factor: zoom, rampNanoseconds: 500_000_000) }
        return CameraWire.request(change, id: id)
    }

    static func state(_ id: UInt64) -> Dualcam_V1_CameraState {
        var report = CameraReport(camera: "v4l2 /dev/video0 (vivid)")
        report.controls = [CameraControl(name: "brightness", label: "Brightness", kind: .integer, minimum: 0, maximum: 255,
                                         step: 1, defaultValue: 128, value: 200)]
        report.outcomes = [.init(name: "brightness", value: 200)]
        return CameraWire.state(report, requestID: id)
    }

    @Test func aRequestIsAnsweredWhileRecording() throws {
        var pair = MachinePair()
        try pair.startRecording("take-1")
        try pair.coordinatorSends(.cameraRequest(Self.request(1, set: [("brightness", "200")], zoom: 2)))
        try pair.pump()
        #expect(pair.agentEvents.last == .cameraRequest(Self.request(1, set: [("brightness", "200")], zoom: 2)))
        try pair.agentSends(.cameraState(Self.state(1)))
        try pair.pump()
        #expect(pair.coordinatorEvents.last == .cameraState(Self.state(1)))
        #expect(pair.agent.state == .established(.recording(sessionID: "take-1")))
        #expect(pair.agentClosed == .none && pair.coordinatorClosed == .none)
    }

    @Test func theWireCarriesTheReportWhole() {
        let report = CameraWire.report(Self.state(7))
        #expect(report.camera == "v4l2 /dev/video0 (vivid)")
        #expect(report.controls.first?.value == 200 && report.controls.first?.rangeText == "0…255")
        #expect(report.outcomes == [.init(name: "brightness", value: 200)])
        let change = CameraWire.change(Self.request(3, set: [("auto_exposure", "manual_mode")], zoom: 2))
        #expect(change.settings == [.init(name: "auto_exposure", value: "manual_mode")])
        #expect(change.zoom == .init(factor: 2, centre: .centre, rampNanoseconds: 500_000_000))
    }

    @Test func anAnswerNobodyAskedForIsRefused() throws {
        var pair = MachinePair()
        try pair.connect()
        #expect(throws: ProtocolError.self) { try pair.agentSends(.cameraState(Self.state(5))) }
        let actions = pair.coordinator.receive(Envelopes.envelope(.cameraState(Self.state(5)), sequence: 1_000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadState, "\(actions)")
        #expect(pair.coordinator.state == .closed)
    }

    @Test func aCoordinatorCannotPileUpRequests() {
        var agent = HostileInputTests().establishedAgent()
        var actions: [AgentConnectionStateMachine.Action] = []
        for i in 0...CameraRequests.maxOutstanding {
            actions = agent.receive(Envelopes.envelope(.cameraRequest(Self.request(UInt64(i) + 1)), sequence: UInt64(i) + 2), now: 2)
        }
        #expect(actions.sentError()?.code == .errorFlowControl, "\(actions)")
        #expect(agent.state == .closed)
    }

    /// Hostile requests: names that are not names, zooms out of range or not numbers,
    /// too many settings, lock words that are not ones, an ID of 0.
    @Test func hostileRequestsCloseTheConnectionBeforeTheCameraIsTouched() {
        var badZoom = Self.request(1)
        badZoom.zoom.factor = .nan
        var farZoom = Self.request(1)
        farZoom.zoom.factor = 8
        var offPicture = Self.request(1, zoom: 2)
        offPicture.zoom.centreX = 1.5
        var longRamp = Self.request(1, zoom: 2)
        longRamp.zoom.rampMs = 3_600_000
        var lockWord = Self.request(1)
        lockWord.lock = ["iris"]
        var lockEnum = Self.request(1)
        lockEnum.lockDuringTakes = .UNRECOGNIZED(9)
        let requests = [
            Self.request(0), Self.request(1 << 60),
            Self.request(1, set: [("../brightness", "1")]), Self.request(1, set: [("Brightness", "1")]),
            Self.request(1, set: [("", "1")]), Self.request(1, set: [(String(repeating: "a", count: 49), "1")]),
            Self.request(1, set: [("brightness", String(repeating: "9", count: 65))]),
            Self.request(1, set: Array(repeating: ("brightness", "1"), count: 65)),
            badZoom, farZoom, offPicture, longRamp, lockWord, lockEnum,
        ]
        for request in requests {
            var agent = HostileInputTests().establishedAgent()
            let actions = agent.receive(Envelopes.envelope(.cameraRequest(request), sequence: 2), now: 2)
            HostileInputTests().expectRefused(actions, agent, mentioning: "CameraRequest")
        }
    }

    @Test func hostileAnswersAreRefused() throws {
        var inverted = Self.state(1)
        inverted.controls[0].minimum = 300
        var badName = Self.state(1)
        badName.controls[0].name = "bright ness"
        var longLabel = Self.state(1)
        longLabel.controls[0].label = String(repeating: "x", count: 65)
        var tooMany = Self.state(1)
        tooMany.controls = Array(repeating: tooMany.controls[0], count: 257)
        var badZoom = Self.state(1)
        badZoom.zoom.factor = -1
        var locked = Self.state(1)
        locked.locked = ["everything"]
        for answer in [inverted, badName, longLabel, tooMany, badZoom, locked] {
            var pair = MachinePair()
            try pair.connect()
            try pair.coordinatorSends(.cameraRequest(Self.request(1)))
            let actions = pair.coordinator.receive(Envelopes.envelope(.cameraState(answer), sequence: 1_000), now: pair.now)
            #expect(actions.sentError()?.code == .errorBadMessage, "\(actions)")
            #expect(pair.coordinator.state == .closed)
        }
    }

    /// What the agent says is shown to the operator: control bytes never reach a terminal.
    @Test func theAgentsWordsArrivePrintable() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.cameraRequest(Self.request(1)))
        try pair.pump()
        var answer = Self.state(1)
        answer.results = [Dualcam_V1_ControlResult.with { $0.name = "gain"; $0.problem = "no\u{1b}[2J\nforged" }]
        answer.controls[0].label = "Bright\u{7}ness"
        try pair.agentSends(.cameraState(answer))
        try pair.pump()
        guard case .cameraState(let shown)? = pair.coordinatorEvents.last else {
            Issue.record("no CameraState delivered")
            return
        }
        #expect(shown.results[0].problem == "no?[2J?forged")
        #expect(shown.controls[0].label == "Bright?ness")
    }
}
