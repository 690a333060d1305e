/// One setting a camera offers (brightness, exposure, focus…), as its driver describes
/// it, under a stable name. Plain data: the V4L2 wrapper fills it, the protocol carries
/// it, the checks below judge a wanted value against it.
public struct CameraControl: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case integer, boolean, menu, integerMenu = "integer-menu", button, integer64, bitmask
    }

    public struct MenuEntry: Sendable, Hashable {
        public var index: Int64
        /// The driver's name for the entry ("Manual Mode", "50 Hz"), or the number of an integer menu.
        public var name: String
        public init(index: Int64, name: String) {
            self.index = index
            self.name = name
        }
    }

    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Has no effect now (focus while autofocus is on).
        public static let inactive = Flags(rawValue: 1 << 0)
        /// Taken by a streaming or other user: changes are refused until it lets go.
        public static let grabbed = Flags(rawValue: 1 << 1)
        public static let readOnly = Flags(rawValue: 1 << 2)
        public static let disabled = Flags(rawValue: 1 << 3)
        /// Changes by itself (an automatic mode's current choice).
        public static let volatile = Flags(rawValue: 1 << 4)
        public static let writeOnly = Flags(rawValue: 1 << 5)

        public var names: [String] {
            [(Flags.inactive, "inactive"), (.grabbed, "grabbed"), (.readOnly, "read-only"), (.disabled, "disabled"),
             (.volatile, "volatile"), (.writeOnly, "write-only")].filter { contains($0.0) }.map(\.1)
        }
    }

    /// Stable and safe: lowercase letters, digits and underscores (`exposure_time_absolute`).
    public var name: String
    /// The driver's own words for it ("Exposure Time, Absolute").
    public var label: String
    public var kind: Kind
    public var minimum: Int64
    public var maximum: Int64
    public var step: Int64
    public var defaultValue: Int64
    /// nil when it cannot be read (a button, a write-only control).
    public var value: Int64?
    public var menu: [MenuEntry]
    public var flags: Flags

    public init(name: String, label: String, kind: Kind, minimum: Int64, maximum: Int64, step: Int64,
                defaultValue: Int64, value: Int64?, menu: [MenuEntry] = [], flags: Flags = []) {
        self.name = name
        self.label = label
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.menu = menu
        self.flags = flags
    }

    /// "0…255 in steps of 1", "off/on", "one of: 0 (Disabled), 1 (50 Hz), 2 (60 Hz)".
    public var rangeText: String {
        switch kind {
        case .boolean: return "0 or 1 (off or on)"
        case .menu, .integerMenu:
            return "one of: " + menu.map { "\($0.index) (\($0.name))" }.joined(separator: ", ")
        case .button: return "any value (it is a button: setting it presses it)"
        default: return "\(minimum)…\(maximum)" + (step > 1 ? " in steps of \(step)" : "")
        }
    }

    /// The current value as a person reads it: a menu entry's name, on/off.
    public var valueText: String {
        guard let value else { return kind == .button ? "(button)" : "(unreadable)" }
        return Self.text(value, kind: kind, menu: menu)
    }

    static func text(_ value: Int64, kind: Kind, menu: [MenuEntry]) -> String {
        switch kind {
        case .boolean: return value != 0 ? "1 (on)" : "0 (off)"
        case .menu, .integerMenu:
            return menu.first { $0.index == value }.map { "\(value) (\($0.name))" } ?? "\(value)"
        default: return "\(value)"
        }
    }

    /// Makes a driver's label into a stable name as v4l2-ctl does: lowercase, every run of
    /// other characters one underscore ("Exposure Time, Absolute" → exposure_time_absolute).
    public static func stableName(fromLabel label: String) -> String {
        var name = ""
        var pendingUnderscore = false
        for scalar in label.unicodeScalars {
            if scalar.isASCII, let ch = Character(scalar).lowercased().first, ch.isLetter || ch.isNumber {
                if pendingUnderscore && !name.isEmpty { name.append("_") }
                pendingUnderscore = false
                name.append(ch)
            } else {
                pendingUnderscore = true
            }
        }
        return String(name.prefix(CameraControlNames.maxLength))
    }
}

/// What a name from the wire or a command line may be.
public enum CameraControlNames {
    public static let maxLength = 48

    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxLength
            && name.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5f }
    }
}
