import Foundation
import Testing

@testable import DualCamNet

/// The field arithmetic and Elligator 2 map under CPace, against values computed with
/// Python's integers (an independent implementation, in the comments) and the field's laws.
struct CPaceMathTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Deterministic field elements spread over the whole range.
    static func elements(_ count: Int) -> [Field25519] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            Field25519(littleEndian: (0..<32).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            })
        }
    }

    @Test func fieldLaws() {
        let xs = Self.elements(24)
        for (a, b) in zip(xs, xs.dropFirst()) {
            let c = a + b
            #expect((a * b).isEqual(to: b * a))
            #expect((a * (b + c)).isEqual(to: a * b + a * c))
            #expect(((a - b) + b).isEqual(to: a))
            #expect((a * a.inverse).isEqual(to: .one))
            #expect(a.squared.isSquare)
        }
        #expect(Field25519.zero.inverse.isZero)
        // p ≡ 5 (mod 8), so 2 is not a square; −1 is.
        #expect(!Field25519(2).isSquare)
        #expect((-Field25519.one).isSquare)
    }

    /// 2²⁵⁵ − 1 is p + 18: read, it must come out as 18, fully reduced.
    @Test func nonCanonicalInputIsReduced() {
        let read = Field25519(littleEndian: Array(repeating: 0xFF, count: 32))
        #expect(read.littleEndianBytes == [18] + Array(repeating: 0, count: 31))
        let p = [0xED] + Array(repeating: 0xFF, count: 30) + [0x7F] as [UInt8]
        #expect(Field25519(littleEndian: p).isZero)
        let bytes = (0..<32).map { UInt8($0) }
        #expect(Field25519(littleEndian: bytes).littleEndianBytes == bytes)
    }

    /// Known answers from `python3`: p = 2**255-19, A = 486662, straight RFC 9380 §6.7.1.
    @Test func elligatorMatchesAnIndependentImplementation() {
        #expect(Self.hex(Elligator2.map(Field25519(littleEndian: (0..<32).map { UInt8($0) })).littleEndianBytes)
                == "5f3520001c6c9936a31206afe7c7ac224e8861619bf98872444915899d95f46e")
        #expect(Self.hex(Elligator2.map(Field25519(littleEndian: Array(repeating: 0xFF, count: 32))).littleEndianBytes)
                == "1e5942dd97c756040d27755f1e5b11349cd47d796c45d07052f7e5b11541c349")
    }

    @Test func mappedPointsLieOnTheCurve() {
        for u in Self.elements(32) {
            #expect(Elligator2.curve(Elligator2.map(u)).isSquare)
        }
    }

    /// The generator for a code, both IDs and a nonce, as the Python reference derives it
    /// (lv_cat with LEB128 lengths, SHA-512, first 32 bytes, top bit cleared, Elligator 2).
    @Test func generatorMatchesTheReference() {
        let channel = CPace.channel(agent: DeviceID(bytes: Array(repeating: 0xA1, count: 32)),
                                    coordinator: DeviceID(bytes: Array(repeating: 0xC3, count: 32)))
        let generator = CPace.generator(code: "042917", channel: channel, sessionNonce: Array(repeating: 7, count: 32))
        #expect(Self.hex(generator) == "50305520c4fbaf077e31daa95d965c949bc11a6c0d6fc07841ef1c00a7a8d76f")
    }

    @Test func bothPartiesReachTheSameSharedPointOnlyWithTheSameGenerator() throws {
        let g = CPace.generator(code: "123456", channel: [1], sessionNonce: Array(repeating: 0, count: 32))
        let other = CPace.generator(code: "123457", channel: [1], sessionNonce: Array(repeating: 0, count: 32))
        let a = try CPace.Party(generator: g), b = try CPace.Party(generator: g), c = try CPace.Party(generator: other)
        #expect(try a.shared(with: b.share) == b.shared(with: a.share))
        #expect(try a.shared(with: c.share) != c.shared(with: a.share))
    }
}
