import Crypto

/// CPace (draft-irtf-cfrg-cpace-21) with its cipher suite CPACE-RISTR255-SHA512, in the
/// initiator-responder setting: the coordinator is A (it speaks first, in PairRequest),
/// the agent B. Both turn the pairing code into a secret generator of ristretto255,
/// exchange one share each and arrive at the same intermediate session key (ISK) only if
/// they used the same code, channel identifier and sid. A share shows nothing about the
/// code; a party without the code learns, per exchange, only whether its one guess was
/// right (an online guess the agent counts), and a recorded exchange allows no offline
/// search. The group arithmetic is libsodium's (`Ristretto255`).
///
/// The draft's inputs, as DualCam fills them (PROTOCOL.md §14):
/// - PRS: the code's six ASCII digits.
/// - CI: `lv_cat("DualCam pairing v3", coordinatorID, agentID)`, the IDs each side saw in
///   TLS, initiator first as the draft recommends; identities in CI stay off the wire and
///   need no separate check, and a man in the middle, who must show each side its own
///   certificate, gives the two legs different generators.
/// - sid: 32 random bytes the coordinator draws and sends. The draft suggests that both
///   parties may contribute to sid; here the agent's contribution is its fresh scalar:
///   the agent never answers twice with one scalar, so no two of its ISKs coincide even
///   if a coordinator repeats a sid, and a repeated sid only weakens the repeating side.
/// - ADa, ADb: the coordinator's and the agent's names, so that neither can be shown a
///   name the peer did not send.
///
/// Beyond the draft, which leaves key confirmation to the application, both sides confirm
/// with the draft's own suggestion (§ "Key confirmation"): mac_key =
/// SHA-512("CPaceMac" ‖ sid ‖ ISK), each side's tag = HMAC-SHA-512(mac_key, lv_cat(Y, AD))
/// over the message it sent, so neither tag can be reflected as the other.
public enum CPace {
    public static let shareLength = Ristretto255.elementBytes
    public static let sessionNonceLength = 32
    /// G_Ristretto255.DSI.
    static let dsi = Array("CPaceRistretto255".utf8)
    /// SHA-512's input block size (H.s_in_bytes), which the zero padding fills.
    static let hashBlockBytes = 128
    /// The label that starts CI; v1 was a claimed match, v2 CPace on X25519.
    static let channelLabel = Array("DualCam pairing v3".utf8)

    /// The channel identifier: both device IDs, the coordinator's (the initiator's) first.
    static func channel(coordinator: DeviceID, agent: DeviceID) -> [UInt8] {
        lengthValue([channelLabel, coordinator.bytes, agent.bytes])
    }

    /// generator_string(DSI, PRS, CI, sid, s_in_bytes).
    static func generatorString(prs: [UInt8], channel: [UInt8], sid: [UInt8]) -> [UInt8] {
        let padding = max(0, hashBlockBytes - 1 - prefixedLength(prs) - prefixedLength(dsi))
        return lengthValue([dsi, prs, [UInt8](repeating: 0, count: padding), channel, sid])
    }

    /// calculate_generator: SHA-512 of the generator string (64 bytes, twice the field
    /// size), turned into an element by ristretto255's element derivation.
    static func generator(prs: [UInt8], channel: [UInt8], sid: [UInt8]) throws -> Ristretto255.Element {
        try Ristretto255.element(fromUniform: Array(SHA512.hash(data: generatorString(prs: prs, channel: channel, sid: sid))))
    }

    /// One side of an exchange: a fresh secret scalar and the share it sends.
    struct Party: Sendable {
        let scalar: Ristretto255.Scalar
        let share: [UInt8]

        init(generator: Ristretto255.Element) throws {
            try self.init(scalar: .random(), generator: generator)
        }

        /// With a given scalar: the draft's test vectors only.
        init(scalar: Ristretto255.Scalar, generator: Ristretto255.Element) throws {
            self.scalar = scalar
            share = try Ristretto255.multiply(scalar, generator.bytes).bytes
        }

        /// K = scalar_mult_vfy(mine, theirs); throws where the draft aborts (the share is
        /// not an element, or K is the identity).
        func sharedPoint(with theirs: [UInt8]) throws -> [UInt8] {
            guard theirs.count == CPace.shareLength else { throw PairingError("a CPace share is \(CPace.shareLength) bytes, not \(theirs.count)") }
            do {
                return try Ristretto255.multiply(scalar, theirs).bytes
            } catch let error as SodiumError {
                throw PairingError("the peer's pairing share is not usable: \(error)")
            }
        }
    }

    /// transcript_ir(Ya, ADa, Yb, ADb).
    static func transcript(initiatorShare: [UInt8], initiatorData: [UInt8], responderShare: [UInt8],
                           responderData: [UInt8]) -> [UInt8] {
        lengthValue([initiatorShare, initiatorData]) + lengthValue([responderShare, responderData])
    }

    /// ISK = SHA-512(lv_cat(DSI ‖ "_ISK", sid, K) ‖ transcript).
    static func intermediateKey(sid: [UInt8], sharedPoint: [UInt8], transcript: [UInt8]) -> [UInt8] {
        Array(SHA512.hash(data: lengthValue([dsi + Array("_ISK".utf8), sid, sharedPoint]) + transcript))
    }

    /// Key confirmation under one exchange's ISK.
    struct Confirmation: Sendable {
        let key: SymmetricKey

        init(sid: [UInt8], intermediateKey: [UInt8]) {
            key = SymmetricKey(data: SHA512.hash(data: Array("CPaceMac".utf8) + sid + intermediateKey))
        }

        /// The tag over the message a side sent: its share and its associated data.
        func tag(share: [UInt8], data: [UInt8]) -> [UInt8] {
            Array(HMAC<SHA512>.authenticationCode(for: CPace.lengthValue([share, data]), using: key))
        }

        func verify(_ tag: [UInt8], share: [UInt8], data: [UInt8]) -> Bool {
            HMAC<SHA512>.isValidAuthenticationCode(tag, authenticating: CPace.lengthValue([share, data]), using: key)
        }
    }

    /// One exchange as both sides compute it, from the shares and names on the wire:
    /// the confirmation key, after checking the peer's share.
    static func confirmation(party: Party, peerShare: [UInt8], sid: [UInt8], coordinatorShare: [UInt8],
                             coordinatorName: String, agentShare: [UInt8], agentName: String) throws -> Confirmation {
        let k = try party.sharedPoint(with: peerShare)
        let heard = transcript(initiatorShare: coordinatorShare, initiatorData: Array(coordinatorName.utf8),
                               responderShare: agentShare, responderData: Array(agentName.utf8))
        return Confirmation(sid: sid, intermediateKey: intermediateKey(sid: sid, sharedPoint: k, transcript: heard))
    }

    /// lv_cat: each item preceded by its length as LEB128.
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
