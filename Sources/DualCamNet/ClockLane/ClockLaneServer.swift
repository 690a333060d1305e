import Foundation
import NIOConcurrencyHelpers

/// The coordinator's end of one agent's clock lane (§20): a UDP socket on the address the
/// agent's connection runs from, a thread that answers the agent's pings, and nothing else.
///
/// t2 is the kernel's receive stamp and t3 is read just before the answer is sent, on a
/// thread that does nothing else, so neither the segment uploads and previews that queue on
/// the TLS connection nor the event loop that decrypts them enters the exchange.
///
/// Every datagram is suspect: one is answered only when it comes from the agent's address,
/// is exactly a ping of this lane signed with its key, has a ping id above every one
/// answered before (a replay gets nothing), and comes at least `minimumSpacing` after the
/// last one answered (a flood gets one answer per spacing, each no larger than its ping).
public final class ClockLaneServer: Sendable {
    public let terms: ClockLaneTerms
    private let socket: StampedUDPSocket
    private let state = NIOLockedValueBox(State())
    static let minimumSpacingNanoseconds: Int64 = 5_000_000

    struct State {
        var stopping = false
        var answered = 0
        var refused = 0
    }

    /// Opens the lane on `localIP` for pings from `peerIP`, answering on `clock` (the shared
    /// clock; its argument is how long ago the instant wanted was). `scopeID` is the
    /// interface of an IPv6 link-local connection (`SocketAddress.ipv6ScopeID`).
    public init(localIP: String, peerIP: String, scopeID: UInt32 = 0,
                clock: @escaping @Sendable (_ agoNanoseconds: Int64) -> Int64) throws(ClockLaneError) {
        let socket = try StampedUDPSocket(localIP: localIP, scopeID: scopeID)
        self.socket = socket
        let terms = ClockLaneTerms.fresh(port: socket.port)
        self.terms = terms
        let state = self.state
        let thread = Thread {
            Self.serve(socket: socket, terms: terms, peerIP: peerIP, clock: clock, state: state)
        }
        thread.name = "dualcam.clocklane"
        thread.start()
    }

    /// Pings answered and datagrams refused so far.
    public var counts: (answered: Int, refused: Int) {
        state.withLockedValue { ($0.answered, $0.refused) }
    }

    /// Ends the lane; its thread closes the socket within a quarter of a second.
    public func stop() {
        state.withLockedValue { $0.stopping = true }
    }

    private static func serve(socket: StampedUDPSocket, terms: ClockLaneTerms, peerIP: String,
                              clock: @Sendable (Int64) -> Int64, state: NIOLockedValueBox<State>) {
        var lastID: UInt64 = 0
        var lastAnswer: Int64?
        // A failing socket ends the lane: the agent, hearing nothing, goes on with the pings
        // on its connection.
        socket.receiveLoop(capacity: ClockLanePacket.length, endOnFailure: true,
                           stopping: { state.withLockedValue { $0.stopping } }, clock: clock) { datagram, t2 in
            guard datagram.from.ip == peerIP,
                  let ping = ClockLanePacket.decode(datagram.bytes, key: terms.key),
                  ping.kind == .ping, ping.laneID == terms.laneID, ping.pingID > lastID,
                  lastAnswer.map({ t2 - $0 >= minimumSpacingNanoseconds }) ?? true else {
                state.withLockedValue { $0.refused += 1 }
                return
            }
            lastID = ping.pingID
            lastAnswer = t2
            var pong = ClockLanePacket(kind: .pong, laneID: terms.laneID, pingID: ping.pingID, t2: t2)
            pong.t3 = clock(0)
            do {
                try socket.send(pong.encoded(key: terms.key), to: datagram.from)
                state.withLockedValue { $0.answered += 1 }
            } catch {
                state.withLockedValue { $0.refused += 1 }
            }
        }
    }
}
