/// Timer settings of one connection, in nanoseconds of the caller's monotonic clock.
/// The defaults are the values PROTOCOL.md specifies; tests shorten them.
public struct ConnectionTimeouts: Sendable, Hashable {
    /// Hello (agent) or HelloAck (coordinator) must arrive this soon after the connection.
    public var handshakeNanoseconds: Int64 = 5_000_000_000
    /// A Keepalive is sent when nothing else was sent for this long.
    public var keepaliveIntervalNanoseconds: Int64 = 2_000_000_000
    /// The peer is dropped when no complete frame arrived for this long. Because only
    /// complete frames count, a peer trickling a frame byte by byte is dropped as well.
    public var idleNanoseconds: Int64 = 10_000_000_000

    public init() {}

    public init(handshakeNanoseconds: Int64, keepaliveIntervalNanoseconds: Int64, idleNanoseconds: Int64) {
        self.handshakeNanoseconds = handshakeNanoseconds
        self.keepaliveIntervalNanoseconds = keepaliveIntervalNanoseconds
        self.idleNanoseconds = idleNanoseconds
    }
}
