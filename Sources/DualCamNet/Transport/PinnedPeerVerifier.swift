import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Decides whether a TLS peer may talk to us: its leaf certificate must hash to a pinned
/// device ID and be within its validity period. CA chains are never consulted.
public struct PeerPolicy: Sendable {
    /// Asked at every handshake, so pairings made or revoked meanwhile count at once.
    public var isTrusted: @Sendable (DeviceID) -> Bool
    /// While true, an unpaired peer with a valid certificate is let in for pairing only.
    public var pairingOpen: @Sendable () -> Bool
    /// The wall clock used for certificate validity (a parameter so tests can expire one).
    public var now: @Sendable () -> Date

    public init(trusted: Set<DeviceID>, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(isTrusted: { trusted.contains($0) }, now: now)
    }

    public init(isTrusted: @escaping @Sendable (DeviceID) -> Bool,
                pairingOpen: @escaping @Sendable () -> Bool = { false },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.isTrusted = isTrusted
        self.pairingOpen = pairingOpen
        self.now = now
    }

    /// nil when accepted, else the reason the peer was refused.
    public func check(chain: [NIOSSLCertificate]) -> PeerVerdict {
        guard let leaf = chain.first, let der = try? leaf.toDERBytes() else {
            return .refused(nil, "the peer sent no certificate")
        }
        let id = DeviceID(certificateDER: der)
        let nowSeconds = Int(now().timeIntervalSince1970)
        if nowSeconds > Int(leaf.notValidAfter) {
            return .refused(id, "the certificate of device \(id) expired")
        }
        if nowSeconds < Int(leaf.notValidBefore) {
            return .refused(id, "the certificate of device \(id) is not valid yet (check the clocks)")
        }
        if isTrusted(id) { return .accepted(id) }
        if pairingOpen() { return .pairing(id) }
        return .refused(id, "device \(id) is not paired with this node")
    }
}

public enum PeerVerdict: Sendable, Equatable {
    case accepted(DeviceID)
    /// Unpaired, let in while the pairing window is open: only pairing messages count.
    case pairing(DeviceID)
    case refused(DeviceID?, String)
}

/// Remembers what the verifier decided for one connection, so that a failed handshake
/// can be reported with its real reason instead of a bare TLS alert, and so that the
/// application learns who is on the other end (set before any application data arrives).
public final class VerdictBox: Sendable {
    private let value = NIOLockedValueBox<PeerVerdict?>(nil)
    init() {}
    func set(_ verdict: PeerVerdict) { value.withLockedValue { $0 = verdict } }
    public var verdict: PeerVerdict? { value.withLockedValue { $0 } }
}

/// A connection accepted by an agent, with the verifier's decision about its peer.
public struct AcceptedConnection: Sendable {
    public let channel: EnvelopeChannel
    let verdict: VerdictBox
    let handshake: EventLoopFuture<Void>

    /// Who the peer is, once the handshake is over; nil when it failed (refused, broken,
    /// or idle past the timeout). The channel must still be finished by the caller.
    public func peer() async -> PeerVerdict? {
        do {
            try await handshake.get()
        } catch {
            return nil
        }
        return verdict.verdict
    }
}
