import NIOConcurrencyHelpers
import NIOCore

/// Bounds what peers that have not proved a paired identity can hold on an agent: TCP
/// connections in the TLS handshake, refused ones waiting to close, and pairing
/// connections. Without it, a thousand idle sockets from anywhere used up the agent's
/// open files and the next recording failed ("Too many open files").
///
/// Nobody is known before the handshake ends, so a full agent makes room rather than
/// turning the newcomer away: it closes a stranger of the newcomer's address, or, when the
/// total is reached, one of the address holding the most. Which one is ranked by what each
/// has proved so far (`Proof`): one that has sent a whole ClientHello outranks one that
/// sent nothing or a fragment (what a half-open flood costs nothing to send), and among
/// equals the oldest goes. A flood from the coordinator's own address thus evicts itself,
/// while the paired coordinator's connection, whose ClientHello is whole in its first
/// packet, survives until its certificate is verified, and then stops counting.
public final class ConnectionAdmission: Sendable {
    public struct Limits: Sendable {
        public var perAddress: Int
        public var total: Int
        public init(perAddress: Int = 8, total: Int = 64) {
            precondition(perAddress >= 1 && total >= 1)
            self.perAddress = perAddress
            self.total = total
        }
    }

    /// One admitted connection's place; released once, however often it is asked to be.
    public final class Ticket: Sendable {
        fileprivate let id: UInt64
        private let admission: ConnectionAdmission

        fileprivate init(id: UInt64, admission: ConnectionAdmission) {
            self.id = id
            self.admission = admission
        }

        public func release() { admission.release(id) }

        /// The peer got this far: it now outranks those that did not.
        public func proved(_ proof: Proof) { admission.proved(id, proof) }
    }

    /// How far a stranger's handshake got.
    public enum Proof: Int, Sendable, Comparable {
        /// Connected; nothing or part of a TLS record received.
        case connected
        /// A whole first TLS record (the ClientHello) received.
        case clientHello

        public static func < (a: Proof, b: Proof) -> Bool { a.rawValue < b.rawValue }
    }

    private struct Holder {
        var address: String
        var close: @Sendable () -> Void
        var proof = Proof.connected
    }

    private struct State {
        var holders: [UInt64: Holder] = [:]
        var nextID: UInt64 = 0
        var evicted = 0
    }

    public struct Eviction: Sendable {
        /// Evictions so far, this one included.
        public let count: Int
        public let address: String
        public let perAddressFull: Bool
        /// Log the first and then one in a hundred: a flood must not flood the journal.
        public var worthLogging: Bool { count == 1 || count % 100 == 0 }
    }

    public let limits: Limits
    private let state = NIOLockedValueBox(State())

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// A place for a new connection from `address`; `close` closes that connection should
    /// it be evicted later. When a limit is reached, the connection evicted to make room
    /// is closed (before this returns) and described.
    public func admit(_ address: SocketAddress?, close: @escaping @Sendable () -> Void) -> (Ticket, Eviction?) {
        let key = address?.ipAddress ?? "unknown"
        let (ticket, victim, eviction) = state.withLockedValue { s -> (Ticket, Holder?, Eviction?) in
            var victim: Holder?
            var eviction: Eviction?
            let mine = s.holders.filter { $0.value.address == key }
            let full = mine.count >= limits.perAddress ? mine : (s.holders.count >= limits.total ? busiest(s.holders) : [:])
            // The least proved first, then the oldest.
            if let oldest = full.min(by: { ($0.value.proof, $0.key) < ($1.value.proof, $1.key) })?.key {
                victim = s.holders.removeValue(forKey: oldest)
                s.evicted += 1
                eviction = Eviction(count: s.evicted, address: victim?.address ?? key, perAddressFull: mine.count >= limits.perAddress)
            }
            s.nextID += 1
            s.holders[s.nextID] = Holder(address: key, close: close)
            return (Ticket(id: s.nextID, admission: self), victim, eviction)
        }
        victim?.close()
        return (ticket, eviction)
    }

    /// The holders of the address that holds the most.
    private func busiest(_ holders: [UInt64: Holder]) -> [UInt64: Holder] {
        let counts = Dictionary(grouping: holders.values, by: \.address).mapValues(\.count)
        guard let top = counts.max(by: { $0.value < $1.value })?.key else { return [:] }
        return holders.filter { $0.value.address == top }
    }

    /// Unauthenticated connections held now (for tests and telemetry).
    public var held: Int { state.withLockedValue { $0.holders.count } }

    fileprivate func proved(_ id: UInt64, _ proof: Proof) {
        state.withLockedValue { s in
            if let held = s.holders[id], held.proof < proof { s.holders[id]?.proof = proof }
        }
    }

    fileprivate func release(_ id: UInt64) {
        _ = state.withLockedValue { $0.holders.removeValue(forKey: id) }
    }
}
