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

/// One accepted coordinator connection as the agent's admission sees it: its channel,
/// the protocol connection once it runs, and the take it drives (prepared, recording or
/// resumed on it), so that a newer connection of the same coordinator can be weighed
/// against it.
final class HeldConnection: Sendable {
    let channel: any Channel
    private let state = NIOLockedValueBox<(connection: AgentConnection?, take: String?)>((nil, nil))

    init(channel: any Channel) { self.channel = channel }

    func attach(_ connection: AgentConnection) { state.withLockedValue { $0.connection = connection } }

    /// The take this connection drives now (nil: none, or it ended).
    func drives(_ take: String?) { state.withLockedValue { $0.take = take } }

    var take: String? { state.withLockedValue { $0.take } }

    /// The take it drives while its peer is still heard from: a connection silent for
    /// `silence` is taken to be stale (a pulled cable, a laptop restarted).
    func liveTake(now: Int64, silence: Int64) -> String? {
        state.withLockedValue { held in
            guard let take = held.take, let heard = held.connection?.lastHeardNanoseconds, now &- heard < silence else { return nil }
            return take
        }
    }
}

/// The connection of the coordinator the agent serves, so that the same coordinator
/// connecting again replaces a stale one and a different one is told the agent is busy.
/// Claimed in one step under the lock: two coordinators connecting at once cannot both
/// get in.
final class SessionChannels: Sendable {
    enum Claim {
        /// Another coordinator holds the agent (and the take it drives, if any).
        case busy(DeviceID, take: String?)
        /// The same coordinator's other connection drives a take and is still heard from:
        /// a second run of it (two `start`s) must not take the take's link away.
        case inTake(String)
        /// Claimed; the peer's own older connection, if any, is to be closed.
        case claimed(replacing: (any Channel)?)
    }

    /// How long a connection may be silent and still hold its take against a newcomer of
    /// the same coordinator: 2.5 keepalive intervals (the coordinator sends one every 2 s
    /// when it has nothing else to say), far below the 10 s after which it reconnects.
    static let staleAfterNanoseconds: Int64 = 5_000_000_000

    private let channels = NIOLockedValueBox<[DeviceID: HeldConnection]>([:])

    func claim(_ peer: DeviceID, with held: HeldConnection, now: Int64) -> Claim {
        channels.withLockedValue { all in
            if let (other, holder) = all.first(where: { $0.key != peer }) { return .busy(other, take: holder.take) }
            if let take = all[peer]?.liveTake(now: now, silence: Self.staleAfterNanoseconds) { return .inTake(take) }
            defer { all[peer] = held }
            return .claimed(replacing: all[peer]?.channel)
        }
    }

    /// Forgets `held` unless a newer connection of the peer has replaced it already.
    func remove(_ peer: DeviceID, _ held: HeldConnection) {
        channels.withLockedValue { all in
            if all[peer] === held { all[peer] = nil }
        }
    }
}
