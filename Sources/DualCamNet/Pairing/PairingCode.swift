import Crypto
import Foundation

/// The six digits both sides of a pairing show. They depend on both device IDs and both
/// nonces, so a man in the middle (who must present its own certificate to each side)
/// ends up with two different codes unless it wins a one-in-a-million guess; the agent's
/// commitment keeps it from grinding nonces until the codes collide.
public enum PairingCode {
    public static let nonceLength = 32
    static let label = Array("DualCam pairing v1".utf8)

    public static func commitment(to nonce: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: nonce))
    }

    public static func derive(agent: DeviceID, coordinator: DeviceID,
                              agentNonce: [UInt8], coordinatorNonce: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(data: label)
        hasher.update(data: agent.bytes)
        hasher.update(data: coordinator.bytes)
        hasher.update(data: agentNonce)
        hasher.update(data: coordinatorNonce)
        let digest = Array(hasher.finalize())
        let value = digest.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } % 1_000_000
        let digits = String(format: "%06u", value)
        return String(digits.prefix(3)) + " " + String(digits.suffix(3))
    }

    /// Accepts what a person types: digits with any spaces or dashes.
    public static func normalized(_ typed: String) -> String? {
        let digits = typed.filter { $0.isNumber }
        guard digits.count == 6, typed.allSatisfy({ $0.isNumber || $0 == " " || $0 == "-" }) else { return nil }
        return String(digits.prefix(3)) + " " + String(digits.suffix(3))
    }

    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<nonceLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

public struct PairingError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
