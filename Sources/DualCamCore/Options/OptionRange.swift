/// The values one command-line number may take, and the sentence that tells a user who
/// gave another what to give instead. Both programs keep all of theirs in one table,
/// checked before anything slow happens: a value outside it would trap later in an
/// integer conversion (`Int64(seconds * 1e9)`) or an overflowing product, mid-take.
public struct OptionRange<Value: Comparable & Sendable>: Sendable {
    public let option: String
    public let range: ClosedRange<Value>
    /// Words after the range: "seconds", "MB", "(0: any free port)".
    public let unit: String
    /// The lower bound itself is refused: a duration of 0 is no duration.
    public let excludesLowerBound: Bool

    public init(_ option: String, _ range: ClosedRange<Value>, _ unit: String = "", excludingLowerBound: Bool = false) {
        self.option = option
        self.range = range
        self.unit = unit
        self.excludesLowerBound = excludingLowerBound
    }

    /// What is wrong with `value`, or nil when it is in range. NaN is in no range
    /// (every comparison with it is false), so it is refused like any other.
    public func problem(_ value: Value) -> String? {
        guard !range.contains(value) || (excludesLowerBound && value == range.lowerBound) else { return nil }
        let allowed = (excludesLowerBound ? "more than \(Self.text(range.lowerBound)) and at most " : "\(Self.text(range.lowerBound)) to ")
            + Self.text(range.upperBound) + (unit.isEmpty ? "" : " " + unit)
        let given = Self.text(value)
        // NaN is the only value not equal to itself.
        let what = value != value ? "is not a number" : "is out of range"
        return "\(option) \(given) \(what): give \(allowed)"
    }

    /// Whole doubles without ".0" (3600, not 3600.0), as a user types them.
    static func text(_ value: Value) -> String {
        if let double = value as? Double, double.isFinite, double.rounded() == double, abs(double) < 1e15 {
            return String(Int64(double))
        }
        return "\(value)"
    }
}
