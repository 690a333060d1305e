import DualCamProtocol
import NIOConcurrencyHelpers
import NIOCore

/// An event of a connection's state machine, with the socket read that brought it.
public struct Delivery<Event: Sendable>: Sendable {
    public let event: Event
    /// On the node's clock (the one given to the transport); for timer events, when the
    /// timer fired.
    public let receivedAtNanoseconds: Int64
}

/// The I/O shell around a connection state machine: every envelope read goes through the
/// machine (which validates it, checks its sequence and phase, and answers what the
/// protocol answers by itself), every envelope written is first allowed and numbered by
/// it, and its timers run here. The application sees only the machine's typed events.
///
/// Writes leave in the order the machine numbered them: `send` queues under the same lock
/// that numbers, and one task drains the queue.
public final class ProtocolConnection<Machine: ConnectionStateMachine>: Sendable {
    private enum Outgoing: Sendable {
        case envelope(Dualcam_V1_Envelope)
        case close
    }

    private let machine: NIOLockedValueBox<Machine>
    private let queue: AsyncStream<Outgoing>.Continuation
    private let outgoing: AsyncStream<Outgoing>
    private let clock: @Sendable () -> Int64
    /// Envelopes queued and not yet handed to the channel: what a low-priority message
    /// (a preview picture) would wait behind.
    private let unwritten = NIOLockedValueBox(0)
    /// Why the connection closed, once the machine decided it.
    private let closeReason = NIOLockedValueBox<ProtocolError??>(nil)
    /// When the last complete envelope arrived (the `clock`'s nanoseconds; nil before
    /// any): whether the peer is still there, for whoever must decide between this
    /// connection and a newer one of the same peer.
    private let heard = NIOLockedValueBox<Int64?>(nil)

    public init(machine: Machine, clock: @escaping @Sendable () -> Int64) {
        self.machine = NIOLockedValueBox(machine)
        self.clock = clock
        (outgoing, queue) = AsyncStream.makeStream(of: Outgoing.self)
    }

    /// True when nothing queued waits to be written: a message sent now goes out at once.
    public var isDrained: Bool { unwritten.withLockedValue { $0 } == 0 }

    /// The machine's state now.
    public var state: Machine.State { machine.withLockedValue { $0.state } }

    /// When the peer was last heard from, on the connection's clock.
    public var lastHeardNanoseconds: Int64? { heard.withLockedValue { $0 } }

    /// Sends `body` if the protocol allows it now; throws (sending nothing) otherwise.
    public func send(_ body: Dualcam_V1_Envelope.OneOf_Body, inReplyTo: UInt64 = 0) throws(ProtocolError) {
        let now = clock()
        let result = machine.withLockedValue { m -> Result<Void, ProtocolError> in
            do throws(ProtocolError) {
                let envelope = try m.send(body, inReplyTo: inReplyTo, now: now)
                unwritten.withLockedValue { $0 += 1 }
                queue.yield(.envelope(envelope))
                if case .error(let e) = body, e.fatal { queue.yield(.close) }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Ends the connection in good order: what was queued goes out, then it closes.
    public func finish() {
        noteClosing(nil)
    }

    /// Ends the connection for a local reason: the peer is told (fatal Error), then it closes.
    public func close(with error: ProtocolError) {
        let now = clock()
        let actions = step { $0.close(with: error, now: now) }
        for case .close(let reason) in actions { noteClosing(reason) }
    }

    /// Runs the connection until it closes: reads, writes and timers. `deliver` receives
    /// the machine's events in order; it should return quickly (long work belongs in a
    /// task of its own), since the next envelope is read only after it returns. Returns
    /// why the connection ended: nil when the peer closed or the close was orderly.
    @discardableResult
    public func run(_ channel: EnvelopeChannel,
                    deliver: @escaping @Sendable (Delivery<Machine.Event>) async -> Void) async throws -> ProtocolError? {
        let underlying = channel.channel
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Child.self) { group in
                // The children end without throwing, each saying which it is: a write that
                // fails means the peer is gone, and nothing more can go out either way.
                group.addTask { [outgoing, unwritten] in
                    do {
                        for await item in outgoing {
                            switch item {
                            case .envelope(let envelope):
                                try await outbound.write(envelope)
                                unwritten.withLockedValue { $0 -= 1 }
                            case .close:
                                // Everything queued before the close has been written.
                                outbound.finish()
                                underlying.close(promise: nil)
                                return .writer
                            }
                        }
                    } catch {}
                    return .writer
                }
                group.addTask { try? await self.runTimers(deliver: deliver); return .timers }
                // `start` inside the group: its first envelope is written by the drainer.
                let startActions = step { [clock] in $0.start(now: clock()) }
                _ = await perform(startActions, at: clock(), deliver: deliver)
                do {
                    for try await received in inbound {
                        let now = received.receivedAtNanoseconds
                        let heardAt = clock()
                        heard.withLockedValue { $0 = heardAt }
                        let actions = step { $0.receive(received.envelope, now: now) }
                        if await perform(actions, at: now, deliver: deliver) { break }
                    }
                } catch {
                    queue.finish()
                    group.cancelAll()
                    throw error
                }
                // The peer closed, or the machine did: let the queued words out (a fatal
                // Error's sentence above all), then stop. The writer is waited for by name:
                // the timers' task ends at once on a closed machine, and cancelling the
                // writer then lost a version mismatch's Error (the peer saw only the close).
                // A peer that reads nothing gets `drainLimit` before it is cut off.
                queue.yield(.close)
                queue.finish()
                group.addTask {
                    try? await Task.sleep(nanoseconds: Self.drainLimitNanoseconds)
                    return .drainLimit
                }
                while try await group.next() == .timers {}
                group.cancelAll()
            }
        }
        return closeReason.withLockedValue { $0 ?? nil }
    }

    /// The tasks `run` keeps: the writer, the timers, and the limit on the last words.
    private enum Child: Sendable { case writer, timers, drainLimit }

    /// How long the words queued before a close may take to go out.
    static var drainLimitNanoseconds: UInt64 { 2_000_000_000 }

    /// Fires the machine's timers (handshake, idle, keepalive, Ready) when they are due.
    private func runTimers(deliver: @escaping @Sendable (Delivery<Machine.Event>) async -> Void) async throws {
        while !Task.isCancelled {
            guard let deadline = machine.withLockedValue({ $0.nextDeadline }) else { return }
            // Deadlines only move later while one is awaited, except a new Ready timer,
            // which lies 30 s out: a second's sleep at most keeps both honest.
            let wait = min(deadline - clock(), 1_000_000_000)
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait)) }
            let now = clock()
            let actions = step { $0.tick(now: now) }
            if await perform(actions, at: now, deliver: deliver) { return }
        }
    }

    /// Does what the machine said; true once it said to close.
    private func perform(_ actions: [ConnectionAction<Machine.Event>], at now: Int64,
                         deliver: @Sendable (Delivery<Machine.Event>) async -> Void) async -> Bool {
        var closed = false
        for action in actions {
            switch action {
            case .send:
                break  // queued by `step`, in sequence order
            case .deliver(let event):
                await deliver(Delivery(event: event, receivedAtNanoseconds: now))
            case .close(let reason):
                noteClosing(reason)
                closed = true
            }
        }
        return closed
    }

    /// Runs `body` on the machine and queues the envelopes it produced before the lock is
    /// released, so that no `send` from another task can slip between them and take a
    /// higher sequence number onto the wire first.
    private func step(_ body: (inout Machine) -> [ConnectionAction<Machine.Event>]) -> [ConnectionAction<Machine.Event>] {
        machine.withLockedValue { m in
            let actions = body(&m)
            for case .send(let envelope) in actions {
                unwritten.withLockedValue { $0 += 1 }
                queue.yield(.envelope(envelope))
            }
            return actions
        }
    }

    private func noteClosing(_ reason: ProtocolError?) {
        closeReason.withLockedValue { if $0 == nil { $0 = .some(reason) } }
        queue.yield(.close)
    }
}
