/// e^x, ln x and x^y, for the core, which imports nothing beyond the standard library
/// (not Foundation, not the C maths library: see tools/check-modules.py). Accurate to a
/// few units in the last place, which is all its callers (a zoom's geometric ramp, a
/// bitrate estimate) need.
enum Exponential {
    static let ln2 = 0.693_147_180_559_945_309_417_232_121_458
    static let ln2High = 6.931_471_803_691_238_164_90e-01
    static let ln2Low = 1.908_214_929_270_587_700_02e-10

    /// ln x; −∞ for 0 and NaN below, as the C library gives.
    static func log(_ x: Double) -> Double {
        guard x > 0 else { return x == 0 ? -.infinity : .nan }
        guard x.isFinite else { return x }
        // x = m · 2^e with m in [√½, √2): ln x = e · ln 2 + ln m, and ln m = 2 atanh(s)
        // with s = (m − 1)/(m + 1), |s| ≤ 0.172, whose odd series gains 1.5 digits a term.
        var e = Int(x.exponent)
        var m = x.significand
        if m > 2.0.squareRoot() {
            m /= 2
            e += 1
        }
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var term = s
        var sum = 0.0
        for k in stride(from: 1.0, through: 39, by: 2) {
            sum += term / k
            term *= s2
        }
        return Double(e) * ln2 + 2 * sum
    }

    /// e^x; +∞ past the largest finite result, 0 below the smallest.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.79 { return .infinity }
        if x < -745.2 { return 0 }
        // e^x = 2^n · e^r with |r| ≤ ln 2 / 2, where the Taylor series to r^20 is exact
        // to well below an ulp. ln 2 in two parts (Cody and Waite, as fdlibm): the high
        // part's trailing zero bits keep n · high exact, so r keeps its digits for any n.
        let n = (x / ln2).rounded()
        let r = (x - n * ln2High) - n * ln2Low
        var sum = 1.0
        var term = 1.0
        for k in 1...20 {
            term *= r / Double(k)
            sum += term
        }
        return Double(sign: .plus, exponent: Int(n), significand: sum)
    }

    /// x^y for x ≥ 0 (NaN for a negative base, which no caller has).
    static func pow(_ x: Double, _ y: Double) -> Double {
        if y == 0 { return 1 }
        if x == 0 { return y > 0 ? 0 : .infinity }
        if y == 1 { return x }
        return exp(y * log(x))
    }
}
