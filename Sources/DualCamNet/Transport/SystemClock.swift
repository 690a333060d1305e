#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DualCamCore

/// The host's CLOCK_MONOTONIC in nanoseconds: the clock V4L2 stamps buffers with, and on
/// the coordinator the session's shared clock. The one place the program reads it; the
/// shells take it as a `SystemClock`, capture threads (which pace frames in real time)
/// call it directly.
public enum MonotonicTime {
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Sleeps until the monotonic instant `deadline` (absolute, so that a late wake-up
    /// never accumulates into drift).
    public static func sleep(until deadline: Int64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    /// Nanoseconds since 1970 by the wall clock (CLOCK_REALTIME): only where another
    /// program speaks in wall-clock instants (a Pi camera's sync client), never a deadline.
    public static func wallNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Seconds since 1970 by the wall clock (CLOCK_REALTIME): for names and dates only.
    static func wallSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The host's clocks as a `TimeSource`: what every shell that reads time is given in
/// production (tests give a simulated one).
public struct SystemClock: TimeSource {
    public init() {}

    public var now: Int64 { MonotonicTime.now() }

    public var wallSeconds: Double { MonotonicTime.wallSeconds() }

    public func sleep(until deadline: Int64) async throws {
        let wait = deadline - MonotonicTime.now()
        if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait)) } else { try Task.checkCancellation() }
    }
}
