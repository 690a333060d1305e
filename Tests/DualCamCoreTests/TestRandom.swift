/// A deterministic generator for simulated stamps (xorshift64): the same seed, the same
/// take, on every machine.
struct TestRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    /// Uniform in [-1, 1].
    mutating func symmetric() -> Double { Double(next() % 1_000_001) / 1_000_000 * 2 - 1 }
}
