/// A small seeded generator for deterministic simulations and fuzzing (SplitMix64,
/// Steele et al.): a failure is replayed from the seed it prints. The one copy every test
/// target uses.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Approximately standard normal (Irwin–Hall: twelve uniforms), cut off at ±6.
    public mutating func standardNormal() -> Double {
        var sum = 0.0
        for _ in 0..<12 { sum += unit() }
        return sum - 6
    }

    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<Swift.min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }

    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
