/// An element of GF(2²⁵⁵ − 19), the field of Curve25519, for the one thing swift-crypto
/// does not offer: mapping a hash onto the curve (Elligator 2, `PairingGenerator`). Scalar
/// multiplication stays with swift-crypto's X25519.
///
/// Five limbs of 51 bits; products in `UInt128`. Every operation runs the same steps
/// whatever the values (no branch or index depends on them), because the value mapped is
/// derived from the pairing code.
struct Field25519: Sendable {
    private var limbs: (UInt64, UInt64, UInt64, UInt64, UInt64)
    private static let mask: UInt64 = (1 << 51) - 1

    static let zero = Field25519(limbs: (0, 0, 0, 0, 0))
    static let one = Field25519(limbs: (1, 0, 0, 0, 0))

    private init(limbs: (UInt64, UInt64, UInt64, UInt64, UInt64)) { self.limbs = limbs }

    init(_ small: UInt64) {
        precondition(small < 1 << 51)
        limbs = (small, 0, 0, 0, 0)
    }

    /// Reads 32 little-endian bytes, ignoring the top bit (RFC 7748's decodeUCoordinate).
    init(littleEndian bytes: [UInt8]) {
        precondition(bytes.count == 32)
        func word(_ at: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
        let w0 = word(0), w1 = word(8), w2 = word(16), w3 = word(24) & ((1 << 63) - 1)
        limbs = (w0 & Self.mask,
                 (w0 >> 51 | w1 << 13) & Self.mask,
                 (w1 >> 38 | w2 << 26) & Self.mask,
                 (w2 >> 25 | w3 << 39) & Self.mask,
                 w3 >> 12)
    }

    /// The canonical (fully reduced) 32 little-endian bytes.
    var littleEndianBytes: [UInt8] {
        let (h0, h1, h2, h3, h4) = reduced().limbs
        let words = [h0 | h1 << 51, h1 >> 13 | h2 << 38, h2 >> 26 | h3 << 25, h3 >> 39 | h4 << 12]
        return words.flatMap { w in (0..<8).map { UInt8(truncatingIfNeeded: w >> (8 * UInt64($0))) } }
    }

    /// The value below p: limbs carried, then p subtracted once if the value is ≥ p.
    private func reduced() -> Field25519 {
        var h = carried()
        // q = 1 exactly when h ≥ p, i.e. when h + 19 reaches 2²⁵⁵.
        var q = (h.limbs.0 + 19) >> 51
        q = (h.limbs.1 + q) >> 51
        q = (h.limbs.2 + q) >> 51
        q = (h.limbs.3 + q) >> 51
        q = (h.limbs.4 + q) >> 51
        h.limbs.0 += 19 * q
        h.limbs.1 += h.limbs.0 >> 51; h.limbs.0 &= Self.mask
        h.limbs.2 += h.limbs.1 >> 51; h.limbs.1 &= Self.mask
        h.limbs.3 += h.limbs.2 >> 51; h.limbs.2 &= Self.mask
        h.limbs.4 += h.limbs.3 >> 51; h.limbs.3 &= Self.mask
        h.limbs.4 &= Self.mask
        return h
    }

    /// Each limb below 2⁵¹ (plus a little in the first), the value unchanged mod p.
    private func carried() -> Field25519 {
        var (h0, h1, h2, h3, h4) = limbs
        h1 += h0 >> 51; h0 &= Self.mask
        h2 += h1 >> 51; h1 &= Self.mask
        h3 += h2 >> 51; h2 &= Self.mask
        h4 += h3 >> 51; h3 &= Self.mask
        h0 += 19 * (h4 >> 51); h4 &= Self.mask
        h1 += h0 >> 51; h0 &= Self.mask
        return Field25519(limbs: (h0, h1, h2, h3, h4))
    }

    static func + (a: Field25519, b: Field25519) -> Field25519 {
        let (a0, a1, a2, a3, a4) = a.carried().limbs, (b0, b1, b2, b3, b4) = b.carried().limbs
        return Field25519(limbs: (a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4)).carried()
    }

    static func - (a: Field25519, b: Field25519) -> Field25519 {
        // a + 2p − b: every limb stays positive because b's limbs are carried below 2⁵².
        let (a0, a1, a2, a3, a4) = a.carried().limbs, (b0, b1, b2, b3, b4) = b.carried().limbs
        let twoP0: UInt64 = (1 << 52) - 38, twoP: UInt64 = (1 << 52) - 2
        return Field25519(limbs: (a0 + twoP0 - b0, a1 + twoP - b1, a2 + twoP - b2, a3 + twoP - b3, a4 + twoP - b4)).carried()
    }

    static prefix func - (a: Field25519) -> Field25519 { .zero - a }

    static func * (a: Field25519, b: Field25519) -> Field25519 {
        let (a0, a1, a2, a3, a4) = a.carried().limbs
        let (b0, b1, b2, b3, b4) = b.carried().limbs
        func m(_ x: UInt64, _ y: UInt64) -> UInt128 { UInt128(x) * UInt128(y) }
        // 2²⁵⁵ ≡ 19: a limb product that lands at 2²⁵⁵ or above comes back times 19.
        let b1x = 19 * b1, b2x = 19 * b2, b3x = 19 * b3, b4x = 19 * b4
        let r0 = m(a0, b0) + m(a1, b4x) + m(a2, b3x) + m(a3, b2x) + m(a4, b1x)
        let r1 = m(a0, b1) + m(a1, b0) + m(a2, b4x) + m(a3, b3x) + m(a4, b2x)
        let r2 = m(a0, b2) + m(a1, b1) + m(a2, b0) + m(a3, b4x) + m(a4, b3x)
        let r3 = m(a0, b3) + m(a1, b2) + m(a2, b1) + m(a3, b0) + m(a4, b4x)
        let r4 = m(a0, b4) + m(a1, b3) + m(a2, b2) + m(a3, b1) + m(a4, b0)
        let wideMask = UInt128(mask)
        let c1 = r1 + (r0 >> 51), c2 = r2 + (c1 >> 51), c3 = r3 + (c2 >> 51), c4 = r4 + (c3 >> 51)
        let h0 = UInt64(r0 & wideMask) + 19 * UInt64(c4 >> 51)
        return Field25519(limbs: (h0, UInt64(c1 & wideMask), UInt64(c2 & wideMask), UInt64(c3 & wideMask),
                                  UInt64(c4 & wideMask))).carried()
    }

    var squared: Field25519 { self * self }

    /// self^e for a public exponent given as 32 little-endian bytes (square and multiply,
    /// every bit the same work).
    func power(_ exponent: [UInt8]) -> Field25519 {
        var result = Field25519.one
        for bit in (0..<256).reversed() {
            result = result.squared
            let product = result * self
            result = Field25519.select(product, otherwise: result, when: (exponent[bit / 8] >> (bit % 8)) & 1 == 1)
        }
        return result
    }

    /// The inverse, or 0 for 0 (RFC 9380's inv0): self^(p−2).
    var inverse: Field25519 { power(Self.pMinus2) }

    /// Whether the value is a square in the field, 0 included (RFC 9380's is_square):
    /// Euler's criterion, self^((p−1)/2) is 0 or 1 for squares and −1 otherwise.
    var isSquare: Bool {
        !power(Self.pMinus1Over2).isEqual(to: -.one)
    }

    var isZero: Bool { isEqual(to: .zero) }

    /// Compares canonical forms, every byte.
    func isEqual(to other: Field25519) -> Bool {
        zip(littleEndianBytes, other.littleEndianBytes).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `a` when `condition`, else `b`, by masking rather than branching.
    static func select(_ a: Field25519, otherwise b: Field25519, when condition: Bool) -> Field25519 {
        let m = UInt64(0) &- UInt64(condition ? 1 : 0)
        func pick(_ x: UInt64, _ y: UInt64) -> UInt64 { (x & m) | (y & ~m) }
        return Field25519(limbs: (pick(a.limbs.0, b.limbs.0), pick(a.limbs.1, b.limbs.1), pick(a.limbs.2, b.limbs.2),
                                  pick(a.limbs.3, b.limbs.3), pick(a.limbs.4, b.limbs.4)))
    }

    /// p − 2 = 2²⁵⁵ − 21 and (p − 1)/2 = 2²⁵⁴ − 10, little endian.
    private static let pMinus2: [UInt8] = [0xEB] + Array(repeating: 0xFF, count: 30) + [0x7F]
    private static let pMinus1Over2: [UInt8] = [0xF6] + Array(repeating: 0xFF, count: 30) + [0x3F]
}
