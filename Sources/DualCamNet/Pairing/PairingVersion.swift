import DualCamProtocol

/// Which pairing exchange a peer speaks, read from the protocol version in its Hello or
/// HelloAck (PROTOCOL.md §11: a feature a peer must understand is gated on its minor).
/// Pairing versions do not interoperate: a share of one is no share of another, and
/// without this check a mismatch would read as a wrong code.
public enum PairingVersion {
    /// 3: CPace on ristretto255 through libsodium (protocol 1.9 on).
    public static let current = 3
    /// The first minor of major 1 that speaks `current`.
    static let currentSinceMinor: UInt32 = 9

    /// 1: a claimed match (protocol 1.0); 2: CPace on X25519 (1.1 to 1.8); 3 since 1.9.
    static func spoken(by version: Dualcam_V1_ProtocolVersion) -> Int {
        switch version.minor {
        case 0: 1
        case 1..<currentSinceMinor: 2
        default: current
        }
    }

    /// nil when `peer` pairs as this build does; else the sentence for the person pairing,
    /// naming both versions and the side to update (`olderSide` is the peer's program,
    /// `where` where it runs). A peer newer than this build is not refused here: the
    /// newer side is the one that knows both.
    public static func mismatch(peer: Dualcam_V1_ProtocolVersion, thisSide: String, olderSide: String,
                                where place: String) -> String? {
        let theirs = spoken(by: peer)
        guard theirs < current else { return nil }
        return "\(olderSide) \(place) pairs with pairing version \(theirs) (protocol \(peer.major).\(peer.minor)) and this "
            + "\(thisSide) with pairing version \(current) (protocol \(WireProtocol.major).\(WireProtocol.minor)): "
            + "update \(olderSide) \(place), then pair again"
    }
}
