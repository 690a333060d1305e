/// The composite's layouts. Raw values are the command-line names.
public enum LayoutKind: String, CaseIterable, Sendable {
    /// One camera full frame, the others small windows over it.
    case pip
    /// Cameras stacked top to bottom in equal bands.
    case splitVertical = "split-vertical"
    /// Cameras side by side, left to right, in equal columns.
    case splitHorizontal = "split-horizontal"
    /// The large camera over the top 70% of the height, the others in a bottom band.
    case dominance
    /// Two cameras 50/50: side by side on a landscape output, stacked on a portrait one.
    case equal
    /// ceil(sqrt(N)) columns, as many rows as needed.
    case grid

    /// Parses a command-line name, with an error that lists the valid ones.
    public static func parse(_ text: String) throws(LayoutError) -> LayoutKind {
        let lowered = text.lowercased()
        guard let kind = LayoutKind(rawValue: lowered) ?? shownNames[String(lowered.map { $0 == " " ? "-" : $0 })] else {
            throw LayoutError("unknown layout '\(text)'; expected one of: "
                + allCases.map(\.rawValue).joined(separator: ", ") + " (or side-by-side, stacked, picture-in-picture)")
        }
        return kind
    }

    /// The names the studio shows ("Side by side", "Stacked"), accepted wherever a layout
    /// is named, so that what a person sees on one screen works on the command line.
    static let shownNames: [String: LayoutKind] = [
        "side-by-side": .splitHorizontal, "stacked": .splitVertical, "picture-in-picture": .pip,
    ]
}

/// Where the picture-in-picture window sits.
public enum PiPPosition: String, CaseIterable, Sendable {
    case topLeft = "top-left"
    case topRight = "top-right"
    case bottomLeft = "bottom-left"
    case bottomRight = "bottom-right"
    case center

    public static func parse(_ text: String) throws(LayoutError) -> PiPPosition {
        let lowered = text.lowercased()
        if lowered == "centre" { return .center }
        guard let position = PiPPosition(rawValue: lowered) else {
            throw LayoutError("unknown picture-in-picture position '\(text)'; expected one of: "
                + allCases.map(\.rawValue).joined(separator: ", "))
        }
        return position
    }
}

/// The only picture-in-picture sizes the product offers, as a percentage of the output
/// width. An enum so that an unsupported size cannot be stored.
public enum PiPSize: Int, CaseIterable, Sendable {
    case small = 15
    case medium = 25
    case large = 40

    /// Accepts "15", "25", "40", optionally with a trailing "%".
    public static func parse(_ text: String) throws(LayoutError) -> PiPSize {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Int(digits) else {
            throw LayoutError("picture-in-picture size '\(text)' is not a number; expected 15, 25 or 40")
        }
        return try PiPSize(percent: percent)
    }

    public init(percent: Int) throws(LayoutError) {
        guard let size = PiPSize(rawValue: percent) else {
            throw LayoutError("picture-in-picture size \(percent)% is not offered; expected 15, 25 or 40 (% of the output width)")
        }
        self = size
    }
}

/// Distance between the picture-in-picture window and the frame edges.
public enum PiPMargin: Sendable, Hashable, CustomStringConvertible {
    /// Percent of the output width, used on both axes so the gaps look equal.
    case percent(Int)
    case pixels(Int)

    /// The margin in pixels for an output, rounded down to even for 4:2:0.
    public func pixels(outputWidth: Int) -> Int {
        let raw: Int
        switch self {
        case .percent(let p): raw = (outputWidth * p + 50) / 100
        case .pixels(let px): raw = px
        }
        return max(0, raw) & ~1
    }

    /// Accepts "2%" or "24px" (a bare number is pixels).
    public static func parse(_ text: String) throws(LayoutError) -> PiPMargin {
        let margin: PiPMargin?
        if text.hasSuffix("%") {
            margin = Int(text.dropLast()).map { PiPMargin.percent($0) }
        } else if text.hasSuffix("px") {
            margin = Int(text.dropLast(2)).map { PiPMargin.pixels($0) }
        } else {
            margin = Int(text).map { PiPMargin.pixels($0) }
        }
        guard let margin, margin.isValid else {
            throw LayoutError("picture-in-picture margin '\(text)' is not valid; expected e.g. 2% (of the output width) or 24px")
        }
        return margin
    }

    var isValid: Bool {
        switch self {
        case .percent(let p): return (0...25).contains(p)
        case .pixels(let px): return px >= 0
        }
    }

    public var description: String {
        switch self {
        case .percent(let p): return "\(p)%"
        case .pixels(let px): return "\(px)px"
        }
    }
}

/// A colour in 8-bit limited-range Y'CbCr, the compositor's native space.
public struct YCbCrColor: Sendable, Hashable, CustomStringConvertible {
    public var y: UInt8
    public var cb: UInt8
    public var cr: UInt8

    public init(y: UInt8, cb: UInt8, cr: UInt8) {
        self.y = y
        self.cb = cb
        self.cr = cr
    }

    public static let white = YCbCrColor(y: 235, cb: 128, cr: 128)
    public static let black = YCbCrColor(y: 16, cb: 128, cr: 128)
    public static let grey = YCbCrColor(y: 126, cb: 128, cr: 128)

    /// Accepts "white", "black", "grey"/"gray", or "Y/Cb/Cr" with three numbers 0–255.
    public static func parse(_ text: String) throws(LayoutError) -> YCbCrColor {
        switch text.lowercased() {
        case "white": return .white
        case "black": return .black
        case "grey", "gray": return .grey
        default: break
        }
        let parts = text.split(separator: "/").compactMap { UInt8($0) }
        guard parts.count == 3 else {
            throw LayoutError("colour '\(text)' is not valid; expected white, black, grey or Y/Cb/Cr such as 235/128/128")
        }
        return YCbCrColor(y: parts[0], cb: parts[1], cr: parts[2])
    }

    public var description: String { "\(y)/\(cb)/\(cr)" }
}

/// Picture-in-picture settings. Also read by the other layouts for `swapped`, and by
/// `grid` for `margin` (the gap between its pictures and around them).
public struct PiPOptions: Sendable, Hashable {
    public var position: PiPPosition
    public var size: PiPSize
    public var margin: PiPMargin
    /// Stream 0 is the large picture unless swapped; in the layouts without a large
    /// picture, swapping exchanges the places of streams 0 and 1.
    public var swapped: Bool
    /// Drawn inside the window's edge, so the window keeps its footprint.
    public var borderWidth: Int
    public var borderColor: YCbCrColor
    public var cornerRadius: Int
    public var shadow: Bool

    public var sizePercent: Int { size.rawValue }

    public init(position: PiPPosition = .bottomRight, size: PiPSize = .medium,
                margin: PiPMargin = .percent(2), swapped: Bool = false,
                borderWidth: Int = 4, borderColor: YCbCrColor = .white,
                cornerRadius: Int = 16, shadow: Bool = false) {
        self.position = position
        self.size = size
        self.margin = margin
        self.swapped = swapped
        self.borderWidth = max(0, borderWidth)
        self.borderColor = borderColor
        self.cornerRadius = max(0, cornerRadius)
        self.shadow = shadow
    }

    /// The same with the size as a plain percentage, rejected unless it is 15, 25 or 40.
    public init(position: PiPPosition = .bottomRight, sizePercent: Int,
                margin: PiPMargin = .percent(2), swapped: Bool = false,
                borderWidth: Int = 4, borderColor: YCbCrColor = .white,
                cornerRadius: Int = 16, shadow: Bool = false) throws(LayoutError) {
        guard margin.isValid else { throw LayoutError("picture-in-picture margin \(margin) is not valid") }
        guard borderWidth >= 0 else { throw LayoutError("border width must not be negative (got \(borderWidth))") }
        guard cornerRadius >= 0 else { throw LayoutError("corner radius must not be negative (got \(cornerRadius))") }
        self.init(position: position, size: try PiPSize(percent: sizePercent), margin: margin,
                  swapped: swapped, borderWidth: borderWidth, borderColor: borderColor,
                  cornerRadius: cornerRadius, shadow: shadow)
    }
}

/// What a layout problem was, in words a user can act on. A struct rather than an enum
/// so new cases do not break callers.
public struct LayoutError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension PiPOptions {
    mutating func apply(key: String, value: String?) throws(LayoutError) {
        func required() throws(LayoutError) -> String {
            guard let value, !value.isEmpty else { throw LayoutError("layout option '\(key)' needs a value") }
            return value
        }
        func flag() throws(LayoutError) -> Bool {
            switch value?.lowercased() {
            case nil, "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw LayoutError("layout option '\(key)' takes true or false, not '\(value ?? "")'")
            }
        }
        func pixels() throws(LayoutError) -> Int {
            let text = try required()
            let digits = text.hasSuffix("px") ? String(text.dropLast(2)) : text
            guard let n = Int(digits), n >= 0 else {
                throw LayoutError("layout option '\(key)' needs a non-negative number of pixels, not '\(text)'")
            }
            return n
        }
        switch key {
        case "position", "pos": position = try PiPPosition.parse(try required())
        case "size": size = try PiPSize.parse(try required())
        case "margin": margin = try PiPMargin.parse(try required())
        case "swap", "swapped": swapped = try flag()
        case "border", "border-width": borderWidth = try pixels()
        case "border-color", "border-colour": borderColor = try YCbCrColor.parse(try required())
        case "radius", "corner-radius": cornerRadius = try pixels()
        case "shadow": shadow = try flag()
        default:
            throw LayoutError("unknown layout option '\(key)'; expected fit, fill, anchor, position, size, margin, swap, border, border-color, radius or shadow")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
