/// Sine and cosine of an angle given in turns (1 turn = 2π).
///
/// The core imports nothing, not even the C maths library, so it carries its own. Turns
/// rather than radians because every caller has an exact rational phase (a fraction of a
/// period or of an FFT size), and reducing turns to one period is exact.
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
    private static func sinSeries(_ x: Double) -> Double {
        let x2 = x * x
        var term = x, sum = x
        for n in stride(from: 2, through: 16, by: 2) {
            term *= -x2 / Double(n * (n + 1))
            sum += term
        }
        return sum
    }

    private static func cosSeries(_ x: Double) -> Double {
        let x2 = x * x
        var term = 1.0, sum = 1.0
        for n in stride(from: 1, through: 15, by: 2) {
            term *= -x2 / Double(n * (n + 1))
            sum += term
        }
        return sum
    }
}
