import DualCamCore

/// ClockPings the agent sent and has no ClockPong for yet. Bounded: a pong that comes
/// after its ping was forgotten is ignored, which costs one sample, nothing more.
struct OutstandingPings: Sendable {
    static let limit = 16
    private var pings: [(id: UInt64, t1: Int64)] = []
    private var lastID: UInt64?

    mutating func sent(_ ping: Dualcam_V1_ClockPing) throws(ProtocolError) {
        if let lastID, ping.id <= lastID {
            throw ProtocolError(.badMessage, "ClockPing id \(ping.id) does not increase (previous \(lastID))")
        }
        lastID = ping.id
        if pings.count == Self.limit { pings.removeFirst() }
        pings.append((ping.id, ping.t1Ns))
    }

    /// The sample a pong completes, or nil for a pong to a forgotten or unknown ping.
    mutating func received(_ pong: Dualcam_V1_ClockPong, at t4: Int64) throws(ProtocolError) -> ClockSample? {
        guard let i = pings.firstIndex(where: { $0.id == pong.id }) else { return nil }
        let ping = pings.remove(at: i)
        guard ping.t1 == pong.t1Ns else {
            throw ProtocolError(.badMessage, "ClockPong \(pong.id) echoes t1 \(pong.t1Ns), the ping carried \(ping.t1)")
        }
        return ClockSample(t1: ping.t1, t2: pong.t2Ns, t3: pong.t3Ns, t4: t4)
    }
}
