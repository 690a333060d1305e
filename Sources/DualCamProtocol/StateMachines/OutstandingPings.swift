import DualCamCore

/// ClockPings the agent sent and has no ClockPong for yet. Bounded: a pong that comes
/// after its ping was forgotten is ignored, which costs one sample, nothing more.
///
/// t1 is taken from the pong's echo, not from the ping as the application built it: the
/// transport may restamp t1 at the last moment before the write, and the echo is what
/// actually went out.
struct OutstandingPings: Sendable {
    static let limit = 16
    private var ids: [UInt64] = []
    private var lastID: UInt64?

    mutating func sent(_ ping: Dualcam_V1_ClockPing) throws(ProtocolError) {
        if let lastID, ping.id <= lastID {
            throw ProtocolError(.badMessage, "ClockPing id \(ping.id) does not increase (previous \(lastID))")
        }
        lastID = ping.id
        if ids.count == Self.limit { ids.removeFirst() }
        ids.append(ping.id)
    }

    /// The sample a pong completes, or nil for a pong to a forgotten or unknown ping.
    mutating func received(_ pong: Dualcam_V1_ClockPong, at t4: Int64) -> ClockSample? {
        guard let i = ids.firstIndex(of: pong.id) else { return nil }
        ids.remove(at: i)
        return ClockSample(t1: pong.t1Ns, t2: pong.t2Ns, t3: pong.t3Ns, t4: t4)
    }
}
