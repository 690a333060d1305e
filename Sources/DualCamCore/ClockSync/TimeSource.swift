/// Where a shell reads time and waits for it: given to the rig, its takes, the studio's
/// viewer connections, the recomposer and the agent's session, so that each can run on
/// simulated time in a test. Production's is `SystemClock` (DualCamNet), the one place the
/// monotonic clock is read.
public protocol TimeSource: Sendable {
    /// Nanoseconds on the monotonic clock (CLOCK_MONOTONIC: on the coordinator, the
    /// shared clock). Every deadline is set on it.
    var now: Int64 { get }
    /// Seconds since 1970 by the wall clock: only for what people read (a take's folder
    /// name, a manifest's date), never for a deadline, since it may jump.
    var wallSeconds: Double { get }
    /// Returns once `now` has reached `deadline` (at once if it has); throws
    /// `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Int64) async throws
}

extension TimeSource {
    /// Waits `nanoseconds` from now.
    public func sleep(nanoseconds: Int64) async throws {
        try await sleep(until: now &+ nanoseconds)
    }

    /// Seconds since `start` (an earlier `now`).
    public func seconds(since start: Int64) -> Double {
        Double(now &- start) / 1e9
    }
}
