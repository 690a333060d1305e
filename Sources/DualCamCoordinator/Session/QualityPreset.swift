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

    /// Applies the preset's picture and encoder settings to `plan`.
    public func apply(to plan: inout SessionPlan) {
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
