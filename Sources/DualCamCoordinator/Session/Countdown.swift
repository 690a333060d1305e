import DualCamNet

/// The seconds before T0, counted down on stderr.
enum Countdown {
    static func run(until t0: Int64, progress: @Sendable (String) -> Void) async throws {
        var remaining = (t0 - MonotonicTime.now()) / 1_000_000_000
        // A lead under two seconds is the start's own margin, not a countdown.
        while remaining > 0 && (t0 - MonotonicTime.now()) >= 2_000_000_000 {
            let wait = t0 - remaining * 1_000_000_000 - MonotonicTime.now()
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait)) }
            progress("\(remaining)…")
            remaining -= 1
        }
        let wait = t0 - MonotonicTime.now()
        if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait)) }
    }
}
