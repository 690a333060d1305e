import NIOConcurrencyHelpers
import NIOCore

/// Bounds what peers that have not proved a paired identity can hold on an agent: TCP
/// connections in the TLS handshake, refused ones waiting to close, and pairing
/// connections. Without it, a thousand idle sockets from anywhere used up the agent's
/// open files and the next recording failed ("Too many open files"). A connection stops
/// counting once its certificate is verified as a paired coordinator's, so the paired
/// coordinator always gets in, however many strangers are knocking.
public final class ConnectionAdmission: Sendable {
    public struct Limits: Sendable {
        public var perAddress: Int
        public var total: Int
        public init(perAddress: Int = 8, total: Int = 64) {
            self.perAddress = perAddress
            self.total = total
        }
    }

    /// One admitted connection's place; released once, however often it is asked to be.
    public final class Ticket: Sendable {
        private let address: String
        private let released = NIOLockedValueBox(false)
        private let admission: ConnectionAdmission

        init(address: String, admission: ConnectionAdmission) {
            self.address = address
            self.admission = admission
        }

        public func release() {
            let first = released.withLockedValue { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { admission.release(address) }
        }
    }

    private struct State {
        var byAddress: [String: Int] = [:]
        var total = 0
        var refused = 0
    }

    public let limits: Limits
    private let state = NIOLockedValueBox(State())

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// A place for a new connection from `address`, or nil with the number of connections
    /// refused so far when either limit is reached.
    public func admit(_ address: SocketAddress?) -> Result<Ticket, RefusedCount> {
        let key = address?.ipAddress ?? "unknown"
        return state.withLockedValue { s in
            let mine = s.byAddress[key, default: 0]
            guard mine < limits.perAddress, s.total < limits.total else {
                s.refused += 1
                return .failure(RefusedCount(count: s.refused, address: key, perAddressFull: mine >= limits.perAddress))
            }
            s.byAddress[key] = mine + 1
            s.total += 1
            return .success(Ticket(address: key, admission: self))
        }
    }

    /// Unauthenticated connections held now (for tests and telemetry).
    public var held: Int { state.withLockedValue { $0.total } }

    fileprivate func release(_ address: String) {
        state.withLockedValue { s in
            let left = s.byAddress[address, default: 1] - 1
            s.byAddress[address] = left > 0 ? left : nil
            s.total -= 1
        }
    }

    public struct RefusedCount: Error, Sendable {
        public let count: Int
        public let address: String
        public let perAddressFull: Bool

        /// Log the first refusal and then one in a hundred: a flood must not flood the journal.
        public var worthLogging: Bool { count == 1 || count % 100 == 0 }
    }
}
