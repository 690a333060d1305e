import CFFmpeg
import Synchronization

/// How long one network call of libavformat may block. libavformat asks a context's
/// interrupt callback while it waits (every 100 ms in a TCP wait); this one ends the
/// wait once the deadline set before the call has passed. `rw_timeout` bounds the waits
/// of the protocols that honour it; this bounds every call the same way, whatever the
/// protocol passes on to the sockets under it: the connect and the RTMP handshake, the
/// header, each packet, and the close (SRT lingers to send its last second).
final class NetworkDeadline: Sendable {
    /// Monotonic nanoseconds; `.max` between calls.
    private let deadline = Atomic<Int64>(.max)
    /// The program's one monotonic clock, given by the caller.
    private let now: @Sendable () -> Int64

    init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// Runs `body` with at most `seconds` of waiting on the network.
    func within<T>(seconds: Double, _ body: () throws -> T) rethrows -> T {
        deadline.store(now() + Int64(seconds * 1e9), ordering: .relaxed)
        defer { deadline.store(.max, ordering: .relaxed) }
        return try body()
    }

    var passed: Bool { now() >= deadline.load(ordering: .relaxed) }

    /// The callback for libavformat. Unretained: the context that holds it must not
    /// outlive this object (`OutputFormatContext` keeps it).
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<NetworkDeadline>.fromOpaque(opaque).takeUnretainedValue().passed ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
