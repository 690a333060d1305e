/// An exact frame rate or period, e.g. 30000/1001. Periods in nanoseconds are derived
/// with integer arithmetic per frame index, so a 29.97 fps timeline never accumulates
/// rounding error.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(numerator > 0 && denominator > 0, "frame rate must be positive")
        let g = FrameRate.gcd(numerator, denominator)
        self.numerator = numerator / g
        self.denominator = denominator / g
    }

    public static let fps24 = FrameRate(24)
    public static let fps25 = FrameRate(25)
    public static let ntsc30 = FrameRate(30000, 1001)
    public static let fps30 = FrameRate(30)
    public static let fps50 = FrameRate(50)
    public static let fps60 = FrameRate(60)

    public var framesPerSecond: Double { Double(numerator) / Double(denominator) }
    /// The nominal period, rounded to the nearest nanosecond (for tolerances and sleeps).
    public var periodNanoseconds: Int64 { (1_000_000_000 * denominator + numerator / 2) / numerator }

    /// Exact instant of frame `index` on a grid starting at zero, floored to nanoseconds.
    public func instant(ofFrame index: Int64) -> Int64 {
        FrameRate.mulDivFloor(index, 1_000_000_000 * denominator, numerator)
    }

    /// Index of the first frame whose instant is at or after `nanoseconds`.
    public func firstFrame(atOrAfter nanoseconds: Int64) -> Int64 {
        var k = FrameRate.mulDivFloor(nanoseconds, numerator, 1_000_000_000 * denominator)
        while instant(ofFrame: k) < nanoseconds { k += 1 }
        while k > Int64.min && instant(ofFrame: k - 1) >= nanoseconds { k -= 1 }
        return k
    }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    /// Frames per second as people read them: "30", "12.50", "29.97".
    public var decimalText: String {
        if numerator % denominator == 0 { return String(numerator / denominator) }
        // Two decimals, without Foundation's formatting (the core has no Foundation).
        let hundredths = (numerator * 100 + denominator / 2) / denominator
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

    /// Terms beyond this would overflow `1_000_000_000 * denominator` and the frame
    /// arithmetic after it; real rates (30000/1001) are far inside.
    public static let largestTerm: Int64 = 1_000_000
    /// No camera or encoder goes faster; a text asking for more is a typo.
    public static let highestFramesPerSecond: Int64 = 1000

    /// Parses "30", "29.97" (as 30000/1001), "30000/1001"; nil for anything else,
    /// including rates above `highestFramesPerSecond` or with terms above `largestTerm`.
    /// The fastest rate an option may ask for: beyond any camera the agents drive (the
    /// parser reads up to `highestFramesPerSecond` for files written elsewhere).
    public static let highestOptionFramesPerSecond: Int64 = 240

    /// What is wrong with `text` given as `option` (e.g. "--fps"), or nil for a rate a camera
    /// and the encoder can run at: `--fps 1000` was accepted and recorded mostly drops.
    public static func optionProblem(_ text: String, option: String = "--fps") -> String? {
        guard let rate = FrameRate(parsing: text) else {
            return "\(option) \(text.prefix(40)) is not a rate: give frames a second like 30, 29.97 or 30000/1001"
        }
        guard rate.numerator <= highestOptionFramesPerSecond * rate.denominator else {
            return "\(option) \(text) is out of range: 1 to \(highestOptionFramesPerSecond) frames a second"
        }
        return nil
    }

    public init?(parsing text: String) {
        if let slash = text.firstIndex(of: "/") {
            guard let n = Int64(text[..<slash]), let d = Int64(text[text.index(after: slash)...]),
                  n > 0, d > 0, n <= Self.largestTerm, d <= Self.largestTerm,
                  n <= Self.highestFramesPerSecond * d else { return nil }
            self.init(n, d)
        } else if let n = Int64(text), n > 0, n <= Self.highestFramesPerSecond {
            self.init(n)
        } else if let v = Double(text), v > 0 {
            switch v {
            case 23.976, 23.98: self.init(24000, 1001)
            case 29.97: self.init(30000, 1001)
            case 59.94: self.init(60000, 1001)
            default: return nil
            }
        } else {
            return nil
        }
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }

    /// floor(a * b / c) without overflow for the ranges used here (c > 0).
    static func mulDivFloor(_ a: Int64, _ b: Int64, _ c: Int64) -> Int64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        let (q, r) = c.dividingFullWidth((high, low))
        return (r != 0 && (r < 0) != (c < 0)) ? q - 1 : q
    }
}
