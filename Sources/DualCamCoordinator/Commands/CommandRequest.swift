import DualCamCore

/// A screen's command in its typed wire form, before anything is checked. The studio's
/// JSON body decodes into it (the JSON names are `Name`'s raw values and these fields,
/// docs/STUDIO.md); the terminal's keys and lines parse into it (`TerminalInput`).
/// `rigCommand(_:)` is the one decoder from it into a `RigCommand`, so the two screens
/// accept and refuse a command alike.
public struct CommandRequest: Sendable, Equatable, Codable {
    public enum Name: String, Sendable, Codable, CaseIterable {
        case start, stop, layout
        /// The terminal's l: the next layout kind, its options kept.
        case nextLayout = "next-layout"
        case swap, pip, framing, placement, filter, mix, director
        /// Go live (`"live": true`) or End live (`false`): the take's streams (`--stream`).
        case live
    }

    /// `director`: `auto` hands the programme to the director (before a take: the next
    /// take is cut by it), `manual` gives it to the operator (before a take: no director).
    public enum DirectorMode: String, Sendable, Codable, CaseIterable {
        case auto, manual
    }

    public var command: Name
    // A start's settings; each left out keeps the plan's.
    public var width: Int?
    public var height: Int?
    public var fps: Int?
    public var preset: String?
    public var encoder: String?
    public var countdown: Int?
    public var durationSeconds: Double?
    /// A start's or a `filter` command's filter and intensity.
    public var filter: String?
    public var intensity: Int?
    public var mix: String?
    /// `layout`: a whole spec, or `kind` alone (the current options kept, the framing the
    /// name's own).
    public var layout: String?
    public var kind: String?
    /// `pip`
    public var position: String?
    public var size: Int?
    /// `framing`: fill or fit, and the crop anchor (top, center, bottom).
    public var fit: String?
    public var anchor: String?
    public var director: DirectorMode?
    /// `live`: true goes live, false ends it. `stop` with `live: true` stops the recording
    /// and stays live (`RigCommand.stopRecording`).
    public var live: Bool?

    public init(_ command: Name) {
        self.command = command
    }

    enum CodingKeys: String, CodingKey {
        case command, width, height, fps, preset, encoder, countdown, durationSeconds, filter, intensity, mix, layout, kind
        case position, size, fit, anchor, director, live
    }

    /// Decoded field by field; an unknown command or director mode is refused with the
    /// sentence a person reads (`CommandRequestError`), not the decoder's own.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .command)
        guard let command = Name(rawValue: name) else {
            throw CommandRequestError("unknown command '\(name)'; expected "
                + Name.allCases.map(\.rawValue).listed())
        }
        self.command = command
        width = try c.decodeIfPresent(Int.self, forKey: .width)
        height = try c.decodeIfPresent(Int.self, forKey: .height)
        fps = try c.decodeIfPresent(Int.self, forKey: .fps)
        preset = try c.decodeIfPresent(String.self, forKey: .preset)
        encoder = try c.decodeIfPresent(String.self, forKey: .encoder)
        countdown = try c.decodeIfPresent(Int.self, forKey: .countdown)
        durationSeconds = try c.decodeIfPresent(Double.self, forKey: .durationSeconds)
        filter = try c.decodeIfPresent(String.self, forKey: .filter)
        intensity = try c.decodeIfPresent(Int.self, forKey: .intensity)
        mix = try c.decodeIfPresent(String.self, forKey: .mix)
        layout = try c.decodeIfPresent(String.self, forKey: .layout)
        kind = try c.decodeIfPresent(String.self, forKey: .kind)
        position = try c.decodeIfPresent(String.self, forKey: .position)
        size = try c.decodeIfPresent(Int.self, forKey: .size)
        fit = try c.decodeIfPresent(String.self, forKey: .fit)
        anchor = try c.decodeIfPresent(String.self, forKey: .anchor)
        if let mode = try c.decodeIfPresent(String.self, forKey: .director) {
            guard let known = DirectorMode(rawValue: mode) else { throw CommandRequestError.directorNeedsMode }
            director = known
        }
        live = try c.decodeIfPresent(Bool.self, forKey: .live)
    }
}

/// Why a command request was refused: `description` is the whole sentence; `field` and
/// `detail` name the value at fault, for a screen that words it its own way (the
/// terminal's "not a layout: …").
public struct CommandRequestError: Error, CustomStringConvertible, Sendable {
    public enum Field: String, Sendable {
        case layout, filter, mix
    }

    public let description: String
    public let field: Field?
    /// The value's own refusal (the parser's words), for `field`.
    public let detail: String

    public init(_ description: String, field: Field? = nil, detail: String? = nil) {
        self.description = description
        self.field = field
        self.detail = detail ?? description
    }

    static let directorNeedsMode = CommandRequestError(
        "director needs \"director\": auto (the director cuts) or manual (you choose the layout)")
}

extension Array where Element == String {
    /// "a, b or c"
    func listed() -> String {
        count <= 1 ? joined() : dropLast().joined(separator: ", ") + " or " + last!
    }
}
