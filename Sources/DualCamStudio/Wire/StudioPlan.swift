import DualCamCoordinator
import DualCamCore
import DualCamMedia
import Foundation

/// What the next take starts with: the command line's plan, changed by the page's
/// choices (a start command's fields, a layout picked before the take).
struct StudioPlan: Sendable {
    var base: TakePlan

    static let presets = VideoEncoderSettings.presets
    static let encoders = VideoEncoderSettings.encoders

    init(base: TakePlan) {
        self.base = base
    }

    var countdown: Int { base.countdownSeconds }
    var filter: String { base.filter.kind.rawValue }
    var intensity: Int { base.filter.intensity }
    var mix: String { base.mix.description }
    var width: Int { base.width }
    var height: Int { base.height }
    var fps: Int { Int((Double(base.rate.numerator) / Double(base.rate.denominator)).rounded()) }
    var preset: String { base.preset }
    var encoder: String { base.encoder }
    var layout: LayoutSpec { base.layout }
    var durationSeconds: Double? { base.durationSeconds }

    /// What a camera's recording costs in disk per second, for "how long the disk lasts":
    /// the bitrate when one is set, else what CRF 23 gives at this size (measured with the
    /// demo: about 0.1 bit per pixel per frame), a rough figure the page rounds.
    var estimatedBitsPerSecond: Double {
        if let bitrate = base.bitrate { return Double(bitrate) }
        return Double(base.width * base.height) * Double(fps) * 0.1
    }
}

/// Why a command was refused, with the HTTP status that says so.
struct StudioError: Error {
    var status: Int
    var message: String
    static func bad(_ message: String) -> StudioError { StudioError(status: 400, message: message) }
    static func conflict(_ message: String) -> StudioError { StudioError(status: 409, message: message) }
}
