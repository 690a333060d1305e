/// The part of a connection both roles share: sequence numbers, liveness timers,
/// keepalives and the fatal-error path. Time is always passed in, never read.
struct ConnectionCore: Sendable {
    let timeouts: ConnectionTimeouts
    private(set) var nextSequence: UInt64 = 1
    private(set) var lastInboundSequence: UInt64 = 0
    private(set) var lastReceived: Int64
    private(set) var lastSent: Int64
    /// Set until the handshake completes.
    var handshakeDeadline: Int64?
    private(set) var closed = false

    init(timeouts: ConnectionTimeouts, now: Int64) {
        self.timeouts = timeouts
        lastReceived = now
        lastSent = now
        handshakeDeadline = now &+ timeouts.handshakeNanoseconds
    }

    /// Wraps `body` in an envelope with the next sequence number; the caller sends it now.
    mutating func envelope(_ body: Dualcam_V1_Envelope.OneOf_Body, inReplyTo: UInt64 = 0, now: Int64) -> Dualcam_V1_Envelope {
        var e = Dualcam_V1_Envelope()
        e.sequence = nextSequence
        e.inReplyTo = inReplyTo
        e.body = body
        nextSequence += 1
        lastSent = max(lastSent, now)
        return e
    }

    /// Records an arriving envelope; any complete frame proves the peer alive.
    mutating func noteInbound(_ envelope: Dualcam_V1_Envelope, now: Int64) throws(ProtocolError) {
        lastReceived = max(lastReceived, now)
        guard envelope.sequence > lastInboundSequence else {
            throw ProtocolError(.badMessage, "envelope sequence \(envelope.sequence) does not increase (previous \(lastInboundSequence))")
        }
        lastInboundSequence = envelope.sequence
    }

    /// Reports `error` to the peer as a fatal Error and closes.
    mutating func fail<Event>(_ error: ProtocolError, inReplyTo: UInt64 = 0, now: Int64) -> [ConnectionAction<Event>] {
        guard !closed else { return [] }
        let report = envelope(.error(error.wireError(fatal: true)), inReplyTo: inReplyTo, now: now)
        closed = true
        return [.send(report), .close(error)]
    }

    /// Closes without telling the peer (it told us, or it is gone).
    mutating func closeQuietly<Event>(_ error: ProtocolError?) -> [ConnectionAction<Event>] {
        guard !closed else { return [] }
        closed = true
        return [.close(error)]
    }

    /// Marks the connection closed after the application sent a fatal Error itself.
    mutating func markClosed() {
        closed = true
    }

    /// Handles Keepalive and Error, which every state accepts. Returns nil for other bodies.
    mutating func handleCommon<Event>(
        _ body: Dualcam_V1_Envelope.OneOf_Body, peerError: (Dualcam_V1_Error) -> Event
    ) -> [ConnectionAction<Event>]? {
        switch body {
        case .keepalive:
            return []
        case .error(let received):
            // Its text goes to logs and screens: no forged lines, no terminal escapes.
            var e = received
            e.message = WireIdentifier.printable(e.message)
            var actions: [ConnectionAction<Event>] = [.deliver(peerError(e))]
            if e.fatal {
                actions += closeQuietly(ProtocolError(.peerError, "peer reported a fatal error \(e.code): \(e.message)"))
            }
            return actions
        default:
            return nil
        }
    }

    /// Fires whichever liveness timers are due at `now`.
    mutating func tick<Event>(now: Int64) -> [ConnectionAction<Event>] {
        guard !closed else { return [] }
        if let deadline = handshakeDeadline, now >= deadline {
            let seconds = Double(timeouts.handshakeNanoseconds) / 1e9
            return fail(ProtocolError(.timeout, "no handshake within \(seconds) s"), now: now)
        }
        if now &- lastReceived >= timeouts.idleNanoseconds {
            let seconds = Double(now &- lastReceived) / 1e9
            return fail(ProtocolError(.timeout, "nothing received for \(seconds) s"), now: now)
        }
        if now &- lastSent >= timeouts.keepaliveIntervalNanoseconds {
            var k = Dualcam_V1_Keepalive()
            k.sentNs = now
            return [.send(envelope(.keepalive(k), now: now))]
        }
        return []
    }

    /// When `tick` next has something to do.
    var nextDeadline: Int64? {
        guard !closed else { return nil }
        var d = min(lastReceived &+ timeouts.idleNanoseconds, lastSent &+ timeouts.keepaliveIntervalNanoseconds)
        if let h = handshakeDeadline { d = min(d, h) }
        return d
    }
}
