import DualCamProtocol

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
    /// Frames per second per preset, fastest first, as measured (nil: not measured).
    public var measured: [String: Double]?
    public var measuredEarlier: Bool?
    public var switches: [Switch]

    /// nil for an agent that sent no report (before protocol 1.6).
    init?(_ report: Dualcam_V1_EncoderReport?, switches: [Dualcam_V1_PresetSwitch]) {
        guard let report else { return nil }
        encoder = WireIdentifier.printable(report.encoder)
        preset = WireIdentifier.printable(report.preset)
        automatic = report.automatic
        speed = report.automatic ? (report.speed * 100).rounded() / 100 : nil
        measured = report.measured.isEmpty ? nil
            : Dictionary(report.measured.map { (WireIdentifier.printable($0.preset), $0.framesPerSecond.rounded()) },
                         uniquingKeysWith: { a, _ in a })
        measuredEarlier = report.automatic ? report.cached : nil
        self.switches = switches.map {
            Switch(segment: Int($0.segmentIndex), presentationNanoseconds: $0.atPtsNs, preset: WireIdentifier.printable($0.preset),
                   reason: WireIdentifier.printable($0.reason))
        }
    }
}
