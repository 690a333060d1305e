import DualCamCore
import Synchronization

/// Simulated time for the shells that take a `TimeSource`: `now` moves only when the test
/// says (`advance`), and every sleeper whose deadline it passes wakes then, in deadline
/// order. So a rig's timers, seconds or minutes long, run in microseconds of real time.
public final class SimulatedClock: TimeSource {
    private struct Sleeper {
        let deadline: Int64
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Int64
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let state: Mutex<State>
    /// The wall clock's reading at `now == start`.
    private let wallAtStart: Double
    private let start: Int64

    public init(now: Int64 = 1_000_000_000_000, wallSeconds: Double = 1_800_000_000) {
        state = Mutex(State(now: now))
        start = now
        wallAtStart = wallSeconds
    }

    public var now: Int64 { state.withLock { $0.now } }

    public var wallSeconds: Double { wallAtStart + Double(now - start) / 1e9 }

    /// How many tasks sleep on this clock now.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Int64) async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { s -> Bool in
                    guard deadline > s.now, !Task.isCancelled else { return true }
                    s.sleepers.append(Sleeper(deadline: deadline, id: id, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { s -> Sleeper? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves time to `instant` (never back), waking every sleeper due by then.
    public func advance(to instant: Int64) {
        let due = state.withLock { s -> [Sleeper] in
            s.now = max(s.now, instant)
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    public func advance(by nanoseconds: Int64) {
        advance(to: now + nanoseconds)
    }
}
