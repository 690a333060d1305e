import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Decides whether a TLS peer may talk to us: its leaf certificate must hash to a pinned
/// device ID and be within its validity period. CA chains are never consulted.
public struct PeerPolicy: Sendable {
    public var trusted: Set<DeviceID>
    /// The wall clock used for certificate validity (a parameter so tests can expire one).
    public var now: @Sendable () -> Date

    public init(trusted: Set<DeviceID>, now: @escaping @Sendable () -> Date = { Date() }) {
        self.trusted = trusted
        self.now = now
    }

    /// nil when accepted, else the reason the peer was refused.
    public func check(chain: [NIOSSLCertificate]) -> PeerVerdict {
        guard let leaf = chain.first, let der = try? leaf.toDERBytes() else {
            return .refused(nil, "the peer sent no certificate")
        }
        let id = DeviceID(certificateDER: der)
        guard trusted.contains(id) else {
            return .refused(id, "device \(id) is not paired with this node")
        }
        let nowSeconds = Int(now().timeIntervalSince1970)
        if nowSeconds > Int(leaf.notValidAfter) {
            return .refused(id, "the certificate of device \(id) expired")
        }
        if nowSeconds < Int(leaf.notValidBefore) {
            return .refused(id, "the certificate of device \(id) is not valid yet (check the clocks)")
        }
        return .accepted(id)
    }
}

public enum PeerVerdict: Sendable, Equatable {
    case accepted(DeviceID)
    case refused(DeviceID?, String)
}

/// Remembers what the verifier decided for one connection, so that a failed handshake
/// can be reported with its real reason instead of a bare TLS alert.
final class VerdictBox: Sendable {
    private let value = NIOLockedValueBox<PeerVerdict?>(nil)
    func set(_ verdict: PeerVerdict) { value.withLockedValue { $0 = verdict } }
    var verdict: PeerVerdict? { value.withLockedValue { $0 } }
}
