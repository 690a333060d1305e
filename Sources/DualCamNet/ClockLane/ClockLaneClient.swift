import DualCamCore
import Foundation
import NIOConcurrencyHelpers

/// The agent's end of a clock lane (§20): `ping` sends a datagram stamped t1 just before it
/// leaves; a thread of its own receives the answers, stamps t4 with the kernel's receive
/// instant and hands each completed exchange to `onSample`.
///
/// Only answers from the coordinator's address and lane port, signed with the lane's key,
/// to a ping still outstanding, complete an exchange; anything else is counted and dropped.
public final class ClockLaneClient: Sendable {
    private let socket: StampedUDPSocket
    private let coordinator: UDPPeer
    private let terms: ClockLaneTerms
    private let clock: @Sendable (Int64) -> Int64
    private let state = NIOLockedValueBox(State())
    /// An answer within this long means the lane works (a few lost datagrams do not count).
    static let answeringWindowNanoseconds: Int64 = 2_000_000_000
    /// Pings awaiting an answer, at most; the connection's ClockPings keep as many (§7).
    static let outstandingLimit = 16

    struct State {
        var stopping = false
        var nextID: UInt64 = 0
        /// Ping id and t1 of the pings not answered yet, oldest first; at most
        /// `outstandingLimit`, so a lost datagram costs one sample and no memory.
        var outstanding: [(id: UInt64, t1: Int64)] = []
        var lastAnswer: Int64?
        var refused = 0
    }

    /// Opens the lane from `localIP` (where the agent's connection runs) to the coordinator.
    /// `clock` is the agent's local clock; its argument is how long ago the instant wanted was.
    /// `scopeID` is the interface of an IPv6 link-local connection (`SocketAddress.ipv6ScopeID`).
    public init(terms: ClockLaneTerms, localIP: String, coordinatorIP: String, scopeID: UInt32 = 0,
                clock: @escaping @Sendable (_ agoNanoseconds: Int64) -> Int64,
                onSample: @escaping @Sendable (ClockSample) -> Void) throws(ClockLaneError) {
        guard let coordinator = UDPPeer(ip: coordinatorIP, port: terms.port, scopeID: scopeID) else {
            throw ClockLaneError("clock lane: \(coordinatorIP) is not a numeric address", code: EINVAL)
        }
        let socket = try StampedUDPSocket(localIP: localIP, scopeID: scopeID)
        self.socket = socket
        self.coordinator = coordinator
        self.terms = terms
        self.clock = clock
        let state = self.state
        let thread = Thread {
            Self.receive(socket: socket, terms: terms, coordinatorIP: coordinatorIP, clock: clock, state: state, onSample: onSample)
        }
        thread.name = "dualcam.clocklane"
        thread.start()
    }

    /// Sends the next ping, t1 read as the last thing before the datagram goes.
    public func ping() throws(ClockLaneError) {
        let failure = state.withLockedValue { s -> ClockLaneError? in
            guard !s.stopping else { return nil }
            s.nextID += 1
            let datagram = ClockLanePacket(kind: .ping, laneID: terms.laneID, pingID: s.nextID).encoded(key: terms.key)
            if s.outstanding.count == Self.outstandingLimit { s.outstanding.removeFirst() }
            s.outstanding.append((s.nextID, clock(0)))
            do throws(ClockLaneError) {
                try socket.send(datagram, to: coordinator)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// True while the coordinator answered within the last two seconds.
    public var isAnswering: Bool {
        let now = clock(0)
        return state.withLockedValue { s in s.lastAnswer.map { now - $0 < Self.answeringWindowNanoseconds } ?? false }
    }

    /// Datagrams dropped as not this lane's answers.
    public var refused: Int { state.withLockedValue { $0.refused } }

    /// Ends the lane; its thread closes the socket within a quarter of a second.
    public func stop() {
        state.withLockedValue { $0.stopping = true }
    }

    private static func receive(socket: StampedUDPSocket, terms: ClockLaneTerms, coordinatorIP: String,
                                clock: @Sendable (Int64) -> Int64, state: NIOLockedValueBox<State>,
                                onSample: @Sendable (ClockSample) -> Void) {
        socket.receiveLoop(capacity: ClockLanePacket.length, endOnFailure: false,
                           stopping: { state.withLockedValue { $0.stopping } }, clock: clock) { datagram, t4 in
            let sample: ClockSample? = state.withLockedValue { s in
                guard datagram.from.ip == coordinatorIP, datagram.from.port == terms.port,
                      let pong = ClockLanePacket.decode(datagram.bytes, key: terms.key),
                      pong.kind == .pong, pong.laneID == terms.laneID,
                      let i = s.outstanding.firstIndex(where: { $0.id == pong.pingID }) else {
                    s.refused += 1
                    return nil
                }
                let t1 = s.outstanding.remove(at: i).t1
                s.lastAnswer = t4
                return ClockSample(t1: t1, t2: pong.t2, t3: pong.t3, t4: t4)
            }
            if let sample { onSample(sample) }
        }
    }
}
