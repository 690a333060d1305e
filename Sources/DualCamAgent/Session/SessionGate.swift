import DualCamNet
import NIOConcurrencyHelpers
import NIOCore

/// Lets one coordinator session run at a time (there is one camera), while pairing
/// connections and handshakes proceed beside it. Waiters are served in arrival order.
actor SessionGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private(set) var stopping = false

    func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    func stop() { stopping = true }
}

/// The connection of the coordinator the agent serves, so that the same coordinator
/// connecting again replaces it and a different one is told the agent is busy. Claimed
/// in one step under the lock: two coordinators connecting at once cannot both get in.
final class SessionChannels: Sendable {
    enum Claim {
        /// Another coordinator holds the agent.
        case busy(DeviceID)
        /// Claimed; the peer's own older connection, if any, is to be closed.
        case claimed(replacing: (any Channel)?)
    }

    private let channels = NIOLockedValueBox<[DeviceID: any Channel]>([:])

    func claim(_ peer: DeviceID, with channel: any Channel) -> Claim {
        channels.withLockedValue { all in
            if let other = all.keys.first(where: { $0 != peer }) { return .busy(other) }
            defer { all[peer] = channel }
            return .claimed(replacing: all[peer])
        }
    }

    /// Forgets `channel` unless a newer connection of the peer has replaced it already.
    func remove(_ peer: DeviceID, _ channel: any Channel) {
        channels.withLockedValue { all in
            if all[peer] === channel { all[peer] = nil }
        }
    }
}
