import DualCamCore
import DualCamTestSupport
import NIOConcurrencyHelpers
import Testing

/// The test-support clock the shells run on in simulated time: sleepers wake when time
/// is moved past their deadline, in deadline order, and a cancelled sleeper throws.
@Suite struct SimulatedClockTests {
    @Test func sleepersWakeInDeadlineOrderWhenTimeIsMoved() async throws {
        let clock = SimulatedClock(now: 0)
        let woke = NIOLockedValueBox<[Int]>([])
        let started = ContinuousClock().now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (k, seconds) in [30, 10, 20].enumerated() {
                group.addTask {
                    try await clock.sleep(until: Int64(seconds) * 1_000_000_000)
                    woke.withLockedValue { $0.append(k) }
                }
            }
            while clock.sleepers < 3 { await Task.yield() }
            clock.advance(by: 15_000_000_000)
            while woke.withLockedValue({ $0.count }) < 1 { await Task.yield() }
            #expect(woke.withLockedValue { $0 } == [1])
            clock.advance(to: 60_000_000_000)
            try await group.waitForAll()
        }
        #expect(Set(woke.withLockedValue { $0 }) == [0, 1, 2])
        #expect(clock.now == 60_000_000_000)
        // A minute of simulated time in milliseconds of real time when run alone (2 ms
        // measured); printed, not asserted: beside CPU-bound suites the yields above wait
        // for a free thread of the cooperative pool, which says nothing of this clock.
        print("simulated clock: 60 s simulated in \(ContinuousClock().now - started) of real time")
    }

    @Test func aCancelledSleeperThrowsAndAPastDeadlineReturnsAtOnce() async throws {
        let clock = SimulatedClock(now: 5)
        try await clock.sleep(until: 1)
        let sleeper = Task { try await clock.sleep(until: 1_000_000_000_000) }
        while clock.sleepers < 1 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
        #expect(clock.wallSeconds == 1_800_000_000)
    }
}
