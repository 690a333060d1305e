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

/// The newest connection of each paired coordinator, so that a reconnection can close the
/// one it replaces.
final class SessionChannels: Sendable {
    private let channels = NIOLockedValueBox<[DeviceID: any Channel]>([:])

    /// Records `channel` as `peer`'s and returns the one it replaces, if any.
    func replace(_ peer: DeviceID, with channel: any Channel) -> (any Channel)? {
        channels.withLockedValue { all in
            defer { all[peer] = channel }
            return all[peer]
        }
    }

    /// Another coordinator whose connection is open now, if any.
    func other(than peer: DeviceID) -> DeviceID? {
        channels.withLockedValue { all in all.keys.first { $0 != peer } }
    }

    /// Forgets `channel` unless a newer connection of the peer has replaced it already.
    func remove(_ peer: DeviceID, _ channel: any Channel) {
        channels.withLockedValue { all in
            if all[peer] === channel { all[peer] = nil }
        }
    }
}
