/// Sine and cosine of an angle given in turns (1 turn = 2π).
///
/// The core imports nothing beyond the standard library, not even the C maths library,
/// so it carries its own (tools/check-modules.py holds it to that). Turns
/// rather than radians because every caller has an exact rational phase (a fraction of a
/// period, of an FFT size, or a hue turn in degrees over 360), and reducing turns to one
/// period is exact.
enum Sinusoid {
    static func sin(turns: Double) -> Double {
        let x = turns - turns.rounded(.down)  // [0, 1)
        // Nearest quarter turn, then a remainder within ±1/8 turn = ±π/4 where the
        // series below converge fast.
        let quarter = (x * 4).rounded()
        let angle = (x - quarter / 4) * (2 * Double.pi)
        switch Int(quarter) & 3 {
        case 0: return sinSeries(angle)
        case 1: return cosSeries(angle)
        case 2: return -sinSeries(angle)
        default: return -cosSeries(angle)
        }
    }

    static func cos(turns: Double) -> Double {
        sin(turns: turns + 0.25)
    }

    /// Taylor series to x^17; on |x| ≤ π/4 the first omitted term is below 1e-17.
    private static func sinSeries(_ x: Double) -> Double { x * alternating(x * x, sinTerms) }

    /// Taylor series to x^16.
    private static func cosSeries(_ x: Double) -> Double { alternating(x * x, cosTerms) }

    /// 1/1!, 1/3!, … 1/17!.
    private static let sinTerms: [Double] = [1, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362_880, 1.0 / 39_916_800,
                                             1.0 / 6_227_020_800, 1.0 / 1_307_674_368_000, 1.0 / 355_687_428_096_000]
    /// 1/0!, 1/2!, … 1/16!.
    private static let cosTerms: [Double] = [1, 1.0 / 2, 1.0 / 24, 1.0 / 720, 1.0 / 40320, 1.0 / 3_628_800,
                                             1.0 / 479_001_600, 1.0 / 87_178_291_200, 1.0 / 20_922_789_888_000]

    /// c₀ − c₁x² + c₂x⁴ − …, in Horner form from the smallest term up.
    private static func alternating(_ x2: Double, _ terms: [Double]) -> Double {
        var sum = 0.0
        for c in terms.reversed() { sum = sum * -x2 + c }
        return sum
    }
}
