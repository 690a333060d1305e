import DualCamCore
import DualCamProtocol

/// How an agent encodes a take, from its Ready (PROTOCOL.md §19): the encoder and preset
/// in effect and, with `--preset auto`, what it measured.
struct EncoderReport: Sendable, Equatable {
    var encoder: String
    var preset: String
    /// Frames per second per preset, fastest first; empty for a preset the agent was given.
    var measured: [(preset: String, framesPerSecond: Double)]
    /// The chosen preset's speed over the camera's rate; nil when not measured.
    var speed: Double?
    var measuredBefore: Bool

    init(_ ready: Dualcam_V1_Ready, rate: FrameRate) {
        encoder = WireIdentifier.printable(ready.video.encoder)
        preset = WireIdentifier.printable(ready.video.preset)
        measured = ready.presetsMeasured.map { (WireIdentifier.printable($0.preset), $0.framesPerSecond) }
        let chosen = ready.presetsMeasured.first(where: \.chosen)
        speed = chosen.map { $0.framesPerSecond / rate.framesPerSecond }
        measuredBefore = chosen?.measuredBefore ?? false
    }

    static func == (a: EncoderReport, b: EncoderReport) -> Bool {
        a.encoder == b.encoder && a.preset == b.preset && a.speed == b.speed && a.measuredBefore == b.measuredBefore
            && a.measured.elementsEqual(b.measured) { $0.preset == $1.preset && $0.framesPerSecond == $1.framesPerSecond }
    }
}

/// A camera's encoding in the manifest (`--preset auto`, PROTOCOL.md §19): what the node
/// measured before the take, what it chose, and where it stepped to another preset.
public struct CameraEncoding: Codable, Sendable, Equatable {
    public struct Switch: Codable, Sendable, Equatable {
        public var segment: Int
        public var presentationNanoseconds: Int64
        public var preset: String
        public var reason: String
    }

    public var encoder: String
    public var preset: String
    public var automatic: Bool
    /// The chosen preset's frames per second over the camera's rate (nil: not measured).
    public var speed: Double?
    /// Frames per second per preset, as measured (nil: not measured).
    public var measured: [String: Double]?
    public var measuredEarlier: Bool?
    public var switches: [Switch]

    /// nil for an agent that said nothing of its encoder (before protocol 1.6).
    init?(_ report: EncoderReport?, switches: [Dualcam_V1_PresetSwitch]) {
        guard let report, !report.encoder.isEmpty else { return nil }
        encoder = report.encoder
        preset = report.preset
        automatic = report.speed != nil
        speed = report.speed.map { ($0 * 100).rounded() / 100 }
        measured = report.measured.isEmpty ? nil
            : Dictionary(report.measured.map { ($0.preset, $0.framesPerSecond.rounded()) }, uniquingKeysWith: { a, _ in a })
        measuredEarlier = automatic ? report.measuredBefore : nil
        self.switches = switches.map {
            Switch(segment: Int($0.segmentIndex), presentationNanoseconds: $0.atPtsNs, preset: WireIdentifier.printable($0.preset),
                   reason: WireIdentifier.printable($0.reason))
        }
    }
}
