/// Frame counts as the formats spell time: FCPXML's rational seconds on the frame grid,
/// OTIO's rate as a number.
extension EditTimeline {
    /// `frames` frames as FCPXML time: "1001/30000s" per frame at 29.97, "0s" for none.
    public func fcpxTime(_ frames: Int64) -> String {
        if frames == 0 { return "0s" }
        var numerator = frames * rate.denominator
        var denominator = rate.numerator
        let g = EditTimeline.gcd(numerator, denominator)
        numerator /= g
        denominator /= g
        return denominator == 1 ? "\(numerator)s" : "\(numerator)/\(denominator)s"
    }

    /// FCPXML's frame duration, "1001/30000s".
    var frameDuration: String { "\(rate.denominator)/\(rate.numerator)s" }

    /// Frames a second in full precision, for OTIO's `rate` fields.
    var rateValue: String {
        let v = Double(rate.numerator) / Double(rate.denominator)
        return "\(v)"
    }

    /// FCP 7's `timebase` (the nominal whole rate) and whether it is an NTSC one.
    var timebase: (base: Int64, ntsc: Bool) {
        ((rate.numerator + rate.denominator - 1) / rate.denominator, rate.denominator == 1001)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }
}
