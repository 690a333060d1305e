import DualCamCore
import Foundation
import Testing
@testable import DualCamCoordinator

/// `resume` on the production rig, simulated time: the coordinator killed mid-take, the
/// agents recording on unheard, a new coordinator finishing the take from its folder
/// (what `dualcam-coordinator resume` does, end to end in `SessionRecoveryTests`).
extension RigLifeTests {
    @Test(arguments: [1, 2, 8])
    func aKilledCoordinatorsTakeIsFinishedByTheNextRigsResume(n: Int) async throws {
        let started = ContinuousClock.now
        var first: InProcessRig? = try await Self.connected(n)
        let plan = first!.plan(seconds: 6)
        try await first!.rig.perform(.start(plan))
        // 0.5 s of start lead, then 2.5 s recorded: two whole segments held.
        await first!.run(for: 3 * Self.second)
        let session = try #require(await first!.rig.snapshot().take?.sessionID)
        let (world, clock, out) = (first!.agents, first!.clock, first!.out)
        first!.kill()
        first = nil
        // The agents record on while no coordinator runs.
        clock.advance(by: 2 * Self.second)

        let second = InProcessRig(world: world, clock: clock, out: out)
        let directory = out + "/" + session
        let record = try SessionRecord.load(from: directory)
        // The killed rig's take lets go of the session's lock as its last reference goes,
        // which its loop's task drops a moment after its cancellation.
        var lock: SessionLock?
        for _ in 0..<200 where lock == nil {
            lock = try? SessionLock(sessionDirectory: directory, purpose: "resuming")
            if lock == nil { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        let held = try #require(lock, "the killed rig still holds \(session)")
        let resumed = try record.plan(outputDirectory: out)
        let result = try await second.drive(Task { [second] in
            try await second.rig.resume(sessionDirectory: directory, record: record, plan: resumed, lock: held)
        })
        // Every frame from T0 to the stop, on every camera: what the killed coordinator
        // held, and what the agents kept in their spools meanwhile.
        #expect(try Self.framesCaptured(result) == Array(repeating: 180, count: n))
        #expect(result.perCameraFiles.count == n && FileManager.default.fileExists(atPath: result.combinedFile))
        let said = second.notices.withLockedValue { $0 }
        #expect(said.contains { $0.hasPrefix("  host: ") && $0.contains("segments held already") }, "\(said)")
        Self.took(started, "rig of \(n), the coordinator killed and the take resumed by the next")
    }
}
