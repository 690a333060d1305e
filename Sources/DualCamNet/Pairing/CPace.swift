import Crypto
import Foundation

/// CPace on Curve25519 (after draft-irtf-cfrg-cpace, its X25519 instantiation): both sides
/// turn the pairing code into a secret generator of the curve, exchange one ephemeral
/// share each, and arrive at the same key only if they used the same code. A share shows
/// nothing about the code; a party that does not know the code learns, per exchange, only
/// whether its one guess was right (an online guess the agent counts), and a recorded
/// exchange allows no offline search. The channel identifier holds both device IDs as each
/// side saw them in TLS, so a man in the middle, who must present its own certificate to
/// each side, derives other generators than the two real ends.
public enum CPace {
    public static let shareLength = 32
    public static let sessionNonceLength = 32
    static let dsi = Array("CPace255".utf8)

    /// The generator: SHA-512 of the length-prefixed DSI, code, padding, channel identifier
    /// and session nonce, its first 32 bytes read as a field element, mapped by Elligator 2.
    static func generator(code: String, channel: [UInt8], sessionNonce: [UInt8]) -> [UInt8] {
        let prs = Array(code.utf8)
        let padding = max(0, 128 - 1 - prefixedLength(prs) - prefixedLength(dsi))
        let input = lengthValue([dsi, prs, [UInt8](repeating: 0, count: padding), channel, sessionNonce])
        let hash = Array(SHA512.hash(data: input).prefix(32))
        return Elligator2.map(Field25519(littleEndian: hash)).littleEndianBytes
    }

    /// The channel identifier: both device IDs, the agent's first.
    static func channel(agent: DeviceID, coordinator: DeviceID) -> [UInt8] {
        lengthValue([Array("DualCam pairing v2".utf8), agent.bytes, coordinator.bytes])
    }

    /// One side of an exchange: an ephemeral scalar and the share it sends.
    struct Party: Sendable {
        let secret: Curve25519.KeyAgreement.PrivateKey
        let share: [UInt8]

        init(generator: [UInt8]) throws {
            secret = Curve25519.KeyAgreement.PrivateKey()
            share = try Self.multiply(secret, generator)
        }

        /// The shared point from the other side's share; throws for a share of low order
        /// (the all-zero result CPace must refuse).
        func shared(with theirs: [UInt8]) throws -> [UInt8] {
            guard theirs.count == CPace.shareLength else { throw PairingError("a CPace share is 32 bytes, not \(theirs.count)") }
            return try Self.multiply(secret, theirs)
        }

        private static func multiply(_ scalar: Curve25519.KeyAgreement.PrivateKey, _ point: [UInt8]) throws -> [UInt8] {
            let result: [UInt8]
            do {
                let secret = try scalar.sharedSecretFromKeyAgreement(with: .init(rawRepresentation: point))
                result = secret.withUnsafeBytes { Array($0) }
            } catch {
                throw PairingError("the peer's pairing share is not a usable curve point")
            }
            guard result.contains(where: { $0 != 0 }) else { throw PairingError("the peer's pairing share is of low order") }
            return result
        }
    }

    /// The intermediate session key: the shared point, the session nonce and the whole
    /// transcript (each share with the name its sender gave).
    static func sessionKey(shared: [UInt8], sessionNonce: [UInt8], coordinatorShare: [UInt8], coordinatorName: String,
                           agentShare: [UInt8], agentName: String) -> SymmetricKey {
        let prefix = lengthValue([dsi + Array("_ISK".utf8), sessionNonce, shared])
        let transcript = lengthValue([coordinatorShare, Array(coordinatorName.utf8), agentShare, Array(agentName.utf8)])
        return SymmetricKey(data: SHA512.hash(data: prefix + transcript))
    }

    /// Key confirmation: each side's tag under the session key, with its own label so that
    /// neither tag can be reflected as the other.
    enum Confirmer: String { case agent, coordinator }

    static func tag(_ who: Confirmer, key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array("DualCam pairing confirms \(who.rawValue)".utf8), using: key))
    }

    static func verify(_ tag: [UInt8], from who: Confirmer, key: SymmetricKey) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: Array("DualCam pairing confirms \(who.rawValue)".utf8),
                                               using: key)
    }

    /// Each item preceded by its length as LEB128, as CPace's lv_cat.
    static func lengthValue(_ items: [[UInt8]]) -> [UInt8] {
        items.flatMap { leb128($0.count) + $0 }
    }

    private static func prefixedLength(_ item: [UInt8]) -> Int { leb128(item.count).count + item.count }

    private static func leb128(_ value: Int) -> [UInt8] {
        var rest = value
        var bytes: [UInt8] = []
        repeat {
            let low = UInt8(rest & 0x7F)
            rest >>= 7
            bytes.append(rest == 0 ? low : low | 0x80)
        } while rest != 0
        return bytes
    }

    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<sessionNonceLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

/// RFC 9380 §6.7.1's map to Curve25519 (J = 486662, K = 1, Z = 2), giving the point's
/// u-coordinate, which is all X25519 needs.
enum Elligator2 {
    static let a = Field25519(486_662)
    static let z = Field25519(2)

    static func map(_ u: Field25519) -> Field25519 {
        let denominator = Field25519.one + z * u.squared
        var x1 = -a * denominator.inverse
        x1 = Field25519.select(-a, otherwise: x1, when: x1.isZero)
        let x2 = -x1 - a
        return Field25519.select(x1, otherwise: x2, when: curve(x1).isSquare)
    }

    /// u³ + A·u² + u, the right-hand side of Curve25519's equation: a square exactly when u
    /// is on the curve rather than its twist.
    static func curve(_ x: Field25519) -> Field25519 {
        x * x.squared + a * x.squared + x
    }
}

