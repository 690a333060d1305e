import DualCamCore

/// The product's recording presets; explicit options given beside one override it.
public enum QualityPreset: String, CaseIterable, Sendable {
    case highEfficiency = "high-efficiency"
    case balanced
    case maximum = "maximum-quality"
    case social = "social-media"

    public static func parse(_ text: String) throws -> QualityPreset {
        let key = text.lowercased().replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: "_", with: "-")
        let aliases = ["efficiency": "high-efficiency", "he": "high-efficiency", "maximum": "maximum-quality",
                       "max": "maximum-quality", "social": "social-media"]
        guard let preset = QualityPreset(rawValue: aliases[key] ?? key) else {
            throw CoordinatorError("unknown preset \(text); choose one of \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return preset
    }

    /// What `start` and `serve` record when no preset is named. `demo` records 1280x720
    /// instead (its own `--size`), so that two agents and a coordinator on one machine
    /// keep real time.
    public static let standard = QualityPreset.balanced

    /// Each preset in words, for `--help` and errors: the one list of what they record.
    public var summary: String {
        switch self {
        case .highEfficiency: "1080p30 H.265"
        case .balanced: "1080p30 H.264"
        case .maximum: "4K60 H.265"
        case .social: "1080p30 H.264 at 8 Mbit/s"
        }
    }

    /// "balanced (default: 1080p30 H.264), high-efficiency (1080p30 H.265), …"
    public static var helpText: String {
        allCases.sorted { ($0 == standard ? 0 : 1) < ($1 == standard ? 0 : 1) }
            .map { "\($0.rawValue) (\($0 == standard ? "default: " : "")\($0.summary))" }.joined(separator: ", ")
    }

    /// Applies the preset's picture and encoder settings to `plan`.
    public func apply(to plan: inout TakePlan) {
        switch self {
        case .highEfficiency:
            (plan.width, plan.height, plan.rate) = (1920, 1080, .fps30)
            (plan.encoder, plan.crf, plan.bitrate) = ("libx265", 28, nil)
        case .balanced:
            (plan.width, plan.height, plan.rate) = (1920, 1080, .fps30)
            (plan.encoder, plan.crf, plan.bitrate) = ("libx264", 23, nil)
        case .maximum:
            // Lowered to what the cameras report they can do, once they have said so.
            (plan.width, plan.height, plan.rate) = (3840, 2160, .fps60)
            (plan.encoder, plan.crf, plan.bitrate) = ("libx265", 22, nil)
        case .social:
            // 8 Mbit/s: what the large platforms recommend uploading for 1080p30.
            (plan.width, plan.height, plan.rate) = (1920, 1080, .fps30)
            (plan.encoder, plan.crf, plan.bitrate) = ("libx264", 0, 8_000_000)
        }
    }
}
