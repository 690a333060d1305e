import DualCamCoordinator
import DualCamCore
import DualCamMedia
import Foundation

/// What the next take starts with: the command line's plan, changed by the page's
/// choices (a start command's fields, a layout picked before the take).
struct StudioPlan: Sendable {
    var base: SessionPlan

    static let presets = VideoEncoderSettings.presets
    static let encoders = VideoEncoderSettings.encoders

    init(base: SessionPlan) {
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

/// A command from the page (docs/STUDIO.md), checked before anything changes.
struct StudioCommand: Decodable {
    var command: String
    var width: Int?
    var height: Int?
    var fps: Int?
    var preset: String?
    var encoder: String?
    var countdown: Int?
    var filter: String?
    var intensity: Int?
    var mix: String?
    var durationSeconds: Double?
    var layout: String?
    /// `layout` by name only: the current options kept, the framing the name's own.
    var kind: String?
    var position: String?
    var size: Int?
    /// `framing`: fill or fit, and the crop anchor (top, center, bottom); either may be
    /// left out to keep the current one.
    var fit: String?
    var anchor: String?
    /// `director`: `auto` (the director has the programme; before a take: the next take
    /// is cut by it) or `manual` (the operator has it; before a take: no director).
    var director: String?
}

/// Why a command was refused, with the HTTP status that says so.
struct StudioError: Error {
    var status: Int
    var message: String
    static func bad(_ message: String) -> StudioError { StudioError(status: 400, message: message) }
    static func conflict(_ message: String) -> StudioError { StudioError(status: 409, message: message) }
}

extension StudioPlan {
    /// The plan a start command asks for; throws (changing nothing) on any bad field.
    func applying(_ c: StudioCommand) throws(StudioError) -> StudioPlan {
        var next = self
        if c.width != nil || c.height != nil {
            let w = c.width ?? width, h = c.height ?? height
            guard (160...3840).contains(w), (120...2160).contains(h), w % 2 == 0, h % 2 == 0 else {
                throw .bad("size \(w)x\(h) is not an even size from 160x120 to 3840x2160")
            }
            next.base.width = w
            next.base.height = h
            next.base.fitsSizeToCameras = false
        }
        if let fps = c.fps {
            guard (1...240).contains(fps) else { throw .bad("fps \(fps) is outside 1…240") }
            next.base.rate = FrameRate(Int64(fps), 1)
            next.base.fitsRateToCameras = false
        }
        if let e = c.encoder { next.base.encoder = e }
        if let p = c.preset { next.base.preset = p }
        if let problem = VideoEncoderSettings.problem(encoder: next.base.encoder, preset: next.base.preset) {
            throw .bad(problem.replacingOccurrences(of: "--", with: ""))
        }
        if let seconds = c.countdown {
            guard (0...60).contains(seconds) else { throw .bad("countdown \(seconds) s is outside 0…60") }
            next.base.countdownSeconds = seconds
        }
        if c.filter != nil || c.intensity != nil {
            next.base.filter = try Self.checkedFilter(named: c.filter ?? filter, intensity: c.intensity ?? intensity)
        }
        if let mix = c.mix { next.base.mix = try Self.checkedMix(mix) }
        if let seconds = c.durationSeconds {
            guard seconds > 0, seconds <= 24 * 3600 else { throw .bad("duration \(seconds) s is outside 0…24 h") }
            next.base.durationSeconds = seconds
        }
        return next
    }

    /// A filter the page named, checked: the plan's before a take, the take's during one.
    static func checkedFilter(named name: String, intensity: Int) throws(StudioError) -> Filter {
        do {
            return try FilterSetting(name: name, intensity: intensity).filter
        } catch {
            throw .bad(error.description)
        }
    }

    /// A sound mix the page gave, checked the same way before and during a take.
    static func checkedMix(_ text: String) throws(StudioError) -> AudioMixSpec {
        do {
            return try AudioMixSpec(parsing: text)
        } catch {
            throw .bad("\(error)".replacingOccurrences(of: "--mix", with: "mix"))
        }
    }
}
