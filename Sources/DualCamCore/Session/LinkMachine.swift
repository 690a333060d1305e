/// One agent's link as the rig sees it, without I/O: the rig feeds it what happened to the
/// connection and what the rig is doing, and performs what it returns. The decisions with
/// time or counts in them live here, tested on simulated time: when a closed first
/// connection is tried again and when it fails the start, when a lost agent is reported,
/// and how long it has been gone.
///
/// The take's own view of the agent (ready, rejoining, given up on) is `TakeMachine`'s; the
/// rig's record keeps the connection object beside this and nothing else about the link.
public struct LinkMachine: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Never answered yet.
        case connecting
        case connected
        /// Lost at `since` (monotonic), being tried again.
        case lost(since: Int64)
    }

    /// What the rig is doing when the link closes: it decides what a close means.
    public enum Context: Sendable, Equatable {
        /// `start` or `serve` waits for every agent's first answer.
        case waitingForFirstAnswer
        /// A take (not yet finalising) records this agent.
        case inTake
        /// Between takes, or a take that does not hold this agent.
        case between
    }

    public enum Action: Sendable, Equatable {
        /// A line for the operator.
        case notify(String)
        /// The start that waited for this agent fails with this sentence.
        case failStart(String)
        /// The take hears that the agent is gone for now, and why.
        case tellTake(reason: String)
        /// Try the agent again (`ReconnectSchedule`, and wherever mDNS announces it).
        case reconnect
    }

    /// Tries before an agent that keeps closing the first connection unjudged (an agent
    /// flooded with half-open connections closes the oldest strangers, ours among them)
    /// fails the start.
    public static let unansweredCloseTries = 10
    /// The pause before such a try.
    public static let unansweredCloseRetryNanoseconds: Int64 = 200_000_000

    public private(set) var state: State = .connecting
    public private(set) var everConnected = false
    /// First connections the agent closed unjudged (see `unansweredCloseTries`).
    public private(set) var unansweredCloses = 0
    /// Why the link last closed or failed to open.
    public private(set) var lastReason: String?

    public init() {}

    public var isConnected: Bool { state == .connected }

    /// When it was lost, while it is.
    public var lostSince: Int64? {
        if case .lost(let since) = state { return since }
        return nil
    }

    /// The agent answered (its HelloAck).
    public mutating func connected() {
        state = .connected
        everConnected = true
    }

    /// The connection to the agent called `name` closed: what the rig does about it.
    /// `unansweredClose`: the agent closed during the handshake without judging us
    /// (`TLSTransport.isUnansweredClose`); `shuttingDown`: the rig closes its own links, so
    /// nothing is lost and nothing is tried again.
    public mutating func closed(name: String, reason: String, unansweredClose: Bool, context: Context,
                                shuttingDown: Bool = false, now: Int64) -> [Action] {
        let wasConnected = state == .connected
        lastReason = reason
        if lostSince == nil { state = .lost(since: now) }
        if context == .waitingForFirstAnswer, !everConnected {
            if countsAsUnjudged(unansweredClose) {
                return [.notify("\(name): \(reason); trying again"), .reconnect]
            }
            // Refused or unreachable before it ever answered: the reason is the error.
            return [.failStart("lost agent \(name) while waiting for hello: \(reason)")]
        }
        var actions: [Action] = []
        if context == .inTake {
            actions.append(.tellTake(reason: reason))
        } else if wasConnected && !shuttingDown {
            actions.append(.notify("lost \(name) (\(reason)); reconnecting"))
        }
        if !shuttingDown { actions.append(.reconnect) }
        return actions
    }

    /// The first connection could not be opened: the pause before opening it again while
    /// the agent only closed it unjudged, up to `unansweredCloseTries`; nil when the start
    /// fails with the error.
    public mutating func firstOpenFailed(reason: String, unansweredClose: Bool) -> Int64? {
        lastReason = reason
        return countsAsUnjudged(unansweredClose) ? Self.unansweredCloseRetryNanoseconds : nil
    }

    /// A close the agent made unjudged, with tries left: counted, and the agent is tried again.
    private mutating func countsAsUnjudged(_ unansweredClose: Bool) -> Bool {
        guard unansweredClose, unansweredCloses < Self.unansweredCloseTries else { return false }
        unansweredCloses += 1
        return true
    }

    /// The sentence for an agent that has not answered by the start's deadline.
    public func notAnswered(address: String) -> String {
        lastReason ?? "\(address) did not answer"
    }
}

/// When a lost agent is tried again where it was: every half second for the first minute
/// (a refused connection costs nothing, and a restarted agent is back within seconds),
/// then every 2 s. Counted in the rig's ticks of 250 ms, so that it needs no clock.
public struct ReconnectSchedule: Sendable {
    public static let tickNanoseconds: Int64 = 250_000_000
    private var tries = 0
    private var waited = 0

    public init() {}

    /// Ticks before the next try: 0.25 s, then 0.5 s for 120 tries, then 2 s.
    private var gap: Int { tries == 0 ? 1 : tries <= 120 ? 2 : 8 }

    /// One tick has passed; true when a try is due now.
    public mutating func due() -> Bool {
        waited += 1
        guard waited >= gap else { return false }
        waited = 0
        tries += 1
        return true
    }
}
