/// The CameraRequests of one connection that CameraState has not answered yet (§18), kept
/// alike on both sides: each answer must match a request, and a peer cannot grow the list
/// without bound.
struct CameraRequests: Sendable {
    /// A screen asks one at a time; a few cover a slider dragged faster than a camera answers.
    static let maxOutstanding = 8

    private var asked: Set<UInt64> = []

    mutating func ask(_ request: Dualcam_V1_CameraRequest) throws(ProtocolError) {
        try CameraMessageValidation.checkRequest(request)
        guard !asked.contains(request.requestID) else {
            throw ProtocolError(.badState, "CameraRequest \(request.requestID) is asked already and not answered")
        }
        guard asked.count < Self.maxOutstanding else {
            throw ProtocolError(.flowControl, "more than \(Self.maxOutstanding) CameraRequests unanswered")
        }
        asked.insert(request.requestID)
    }

    mutating func answer(_ state: Dualcam_V1_CameraState) throws(ProtocolError) {
        try CameraMessageValidation.checkState(state)
        guard asked.remove(state.requestID) != nil else {
            throw ProtocolError(.badState, "CameraState \(state.requestID) answers no CameraRequest")
        }
    }
}

/// Field checks of the camera-control messages (§18, §10): names safe, counts bounded,
/// doubles finite and in range, text bounded; a violation is ERROR_BAD_MESSAGE, fatal.
enum CameraMessageValidation {
    static let maxSettings = 64
    static let maxControls = 256
    static let maxMenuEntries = 64
    static let maxNameBytes = 48
    static let maxTextBytes = 64
    static let maxRequestID: UInt64 = 1 << 53
    static let lockWords: Set<String> = ["exposure", "focus", "white-balance"]
    static let maxRampMilliseconds: UInt32 = 60_000

    static func checkRequest(_ r: Dualcam_V1_CameraRequest) throws(ProtocolError) {
        try checkRequestID(r.requestID, "CameraRequest")
        guard r.set.count <= maxSettings else {
            throw ProtocolError(.badMessage, "CameraRequest: at most \(maxSettings) settings, got \(r.set.count)")
        }
        for setting in r.set {
            try checkName(setting.name, "CameraRequest setting")
            try checkText(setting.value, "CameraRequest value of \(setting.name)")
        }
        if r.hasZoom { try checkZoom(r.zoom, "CameraRequest") }
        for word in r.lock + r.unlock where !lockWords.contains(word) {
            throw ProtocolError(.badMessage, "CameraRequest: lock/unlock takes exposure, focus or white-balance, not \(WireIdentifier.printable(word, maxCharacters: 32))")
        }
        guard r.lock.count <= 3, r.unlock.count <= 3 else {
            throw ProtocolError(.badMessage, "CameraRequest: lock and unlock name at most three each")
        }
        if case .UNRECOGNIZED = r.lockDuringTakes {
            throw ProtocolError(.badMessage, "CameraRequest: lock_during_takes is not one of UNCHANGED, ON, OFF")
        }
    }

    static func checkState(_ s: Dualcam_V1_CameraState) throws(ProtocolError) {
        try checkRequestID(s.requestID, "CameraState")
        try checkSentence(s.camera, "CameraState camera")
        try checkSentence(s.controlsNote, "CameraState controls_note")
        guard s.controls.count <= maxControls, s.results.count <= maxSettings + 8 else {
            throw ProtocolError(.badMessage, "CameraState: at most \(maxControls) controls and \(maxSettings + 8) results")
        }
        for control in s.controls {
            try checkName(control.name, "CameraState control")
            try checkText(control.label, "CameraState label of \(control.name)")
            try checkText(control.kind, "CameraState kind of \(control.name)")
            guard control.minimum <= control.maximum, control.step >= 0, control.menu.count <= maxMenuEntries else {
                throw ProtocolError(.badMessage, "CameraState: control \(control.name) has minimum above maximum, a negative step or over \(maxMenuEntries) menu entries")
            }
            for entry in control.menu { try checkText(entry.name, "CameraState menu entry of \(control.name)") }
        }
        for result in s.results {
            try checkText(result.name, "CameraState result")
            try checkSentence(result.problem, "CameraState problem")
        }
        if s.hasZoom { try checkZoom(s.zoom, "CameraState") }
        guard s.locked.count <= 3, s.locked.allSatisfy(lockWords.contains) else {
            throw ProtocolError(.badMessage, "CameraState: locked names at most exposure, focus and white-balance")
        }
    }

    static func checkZoom(_ z: Dualcam_V1_DigitalZoom, _ message: String) throws(ProtocolError) {
        guard z.factor.isFinite, (1...4).contains(z.factor), z.centreX.isFinite, (0...1).contains(z.centreX),
              z.centreY.isFinite, (0...1).contains(z.centreY), z.rampMs <= maxRampMilliseconds else {
            throw ProtocolError(.badMessage, "\(message): zoom factor must be 1…4, centre 0…1 each way, ramp_ms 0…\(maxRampMilliseconds)")
        }
    }

    private static func checkRequestID(_ id: UInt64, _ message: String) throws(ProtocolError) {
        guard id >= 1, id <= maxRequestID else {
            throw ProtocolError(.badMessage, "\(message): request_id \(id) is outside 1…2^53")
        }
    }

    private static func checkName(_ name: String, _ message: String) throws(ProtocolError) {
        guard !name.isEmpty, name.utf8.count <= maxNameBytes,
              name.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5f }) else {
            throw ProtocolError(.badMessage, "\(message): a control name is 1…\(maxNameBytes) of a-z, 0-9 and _")
        }
    }

    private static func checkText(_ text: String, _ message: String) throws(ProtocolError) {
        guard text.utf8.count <= maxTextBytes else {
            throw ProtocolError(.badMessage, "\(message): at most \(maxTextBytes) bytes")
        }
    }

    private static func checkSentence(_ text: String, _ message: String) throws(ProtocolError) {
        guard text.utf8.count <= WireSentences.maxBytes else {
            throw ProtocolError(.badMessage, "\(message): at most \(WireSentences.maxBytes) bytes")
        }
    }
}

extension CameraMessageValidation {
    /// The agent's words made safe to show: printable, bounded.
    static func printable(_ state: Dualcam_V1_CameraState) -> Dualcam_V1_CameraState {
        var shown = state
        shown.camera = WireIdentifier.printable(state.camera, maxCharacters: WireSentences.maxBytes)
        shown.controlsNote = WireIdentifier.printable(state.controlsNote, maxCharacters: WireSentences.maxBytes)
        for i in shown.controls.indices {
            shown.controls[i].label = WireIdentifier.printable(state.controls[i].label, maxCharacters: maxTextBytes)
            for j in shown.controls[i].menu.indices {
                shown.controls[i].menu[j].name = WireIdentifier.printable(state.controls[i].menu[j].name, maxCharacters: maxTextBytes)
            }
        }
        for i in shown.results.indices {
            shown.results[i].name = WireIdentifier.printable(state.results[i].name, maxCharacters: maxTextBytes)
            shown.results[i].problem = WireIdentifier.printable(state.results[i].problem, maxCharacters: WireSentences.maxBytes)
        }
        return shown
    }
}
