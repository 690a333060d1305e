import Crypto
import DualCamProtocol
import Foundation

/// One clock lane datagram (PROTOCOL.md §20), 56 bytes either way, so that an answer is
/// never larger than what asked for it:
///
///     0   "DCL1"
///     4   kind: 1 ping (agent to coordinator), 2 pong
///     5   three zero bytes
///     8   lane id, from the ClockLaneOffer (big endian, like every field below)
///     16  ping id, strictly increasing per lane
///     24  t2: when the coordinator's kernel received the ping (pong only, else 0)
///     32  t3: when the coordinator sent the pong (pong only, else 0)
///     40  the first 16 bytes of HMAC-SHA256(key, bytes 0..<40)
///
/// The agent's own instants, t1 and t4, never travel: it keeps them.
public struct ClockLanePacket: Sendable, Equatable {
    public enum Kind: UInt8, Sendable { case ping = 1, pong = 2 }

    public static let length = 56
    static let signedLength = 40
    static let tagLength = 16
    static let magic: [UInt8] = Array("DCL1".utf8)

    public var kind: Kind
    public var laneID: UInt64
    public var pingID: UInt64
    public var t2: Int64
    public var t3: Int64

    public init(kind: Kind, laneID: UInt64, pingID: UInt64, t2: Int64 = 0, t3: Int64 = 0) {
        self.kind = kind
        self.laneID = laneID
        self.pingID = pingID
        self.t2 = t2
        self.t3 = t3
    }

    /// The datagram, signed with `key`.
    public func encoded(key: SymmetricKey) -> [UInt8] {
        var bytes = Self.magic + [kind.rawValue, 0, 0, 0]
        for field in [laneID, pingID, UInt64(bitPattern: t2), UInt64(bitPattern: t3)] {
            withUnsafeBytes(of: field.bigEndian) { bytes.append(contentsOf: $0) }
        }
        bytes += Self.tag(bytes, key: key)
        return bytes
    }

    /// The packet in `bytes`, or nil for anything that is not a datagram of this lane
    /// signed with `key`: a wrong length, magic, kind, padding or tag. Every check is
    /// made before a field is believed; the tag is compared in constant time.
    public static func decode(_ bytes: [UInt8], key: SymmetricKey) -> ClockLanePacket? {
        guard bytes.count == length, Array(bytes[0..<4]) == magic, bytes[5] == 0, bytes[6] == 0, bytes[7] == 0,
              let kind = Kind(rawValue: bytes[4]) else { return nil }
        let expected = tag(Array(bytes[0..<signedLength]), key: key)
        var difference: UInt8 = 0
        for (a, b) in zip(expected, bytes[signedLength...]) { difference |= a ^ b }
        guard difference == 0 else { return nil }
        func field(_ at: Int) -> UInt64 { bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        return ClockLanePacket(kind: kind, laneID: field(8), pingID: field(16),
                               t2: Int64(bitPattern: field(24)), t3: Int64(bitPattern: field(32)))
    }

    private static func tag(_ signed: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: signed, using: key).prefix(tagLength))
    }
}

/// What both ends of a lane know from the ClockLaneOffer.
public struct ClockLaneTerms: Sendable {
    public let port: Int
    public let key: SymmetricKey
    public let laneID: UInt64

    /// Fresh terms for a new lane on `port`: a random key and lane id.
    static func fresh(port: Int) -> ClockLaneTerms {
        var id: UInt64 = 0
        while id == 0 { id = UInt64.random(in: .min ... .max) }
        return ClockLaneTerms(port: port, key: SymmetricKey(size: .bits256), laneID: id)
    }

    init(port: Int, key: SymmetricKey, laneID: UInt64) {
        self.port = port
        self.key = key
        self.laneID = laneID
    }

    /// The terms of an offer the agent's state machine has already validated.
    public init(_ offer: Dualcam_V1_ClockLaneOffer) {
        self.init(port: Int(offer.port), key: SymmetricKey(data: offer.key), laneID: offer.laneID)
    }

    /// The offer that tells the agent these terms.
    public var offer: Dualcam_V1_ClockLaneOffer {
        var offer = Dualcam_V1_ClockLaneOffer()
        offer.port = UInt32(port)
        offer.key = key.withUnsafeBytes { Data($0) }
        offer.laneID = laneID
        return offer
    }
}
