import DualCamCore
import DualCamMedia
import Foundation
import Testing
@testable import DualCamCoordinator

/// A take's whole life on simulated time, with 1, 2 and 8 in-process agents delivering real
/// TS segments: prepared, counted down, recorded, an agent lost and back, stopped, its
/// files finished; cancelled in its countdown; an agent never back given up on. Seconds
/// of take in a fraction of a second each: the real-time cost is printed.
@Suite struct TakeLifeTests {
    static let sizes = [1, 2, 8]
    static let second: Int64 = 1_000_000_000

    static func names(_ n: Int) -> [String] { (0..<n).map { "node-\($0)" } }

    /// A take of `n` agents started and recorded until `into` past its T0.
    static func recording(_ n: Int, into: Int64, plan: (inout TakePlan) -> Void = { _ in }) throws -> (InProcessAgents, Int64) {
        let rig = InProcessAgents(agents: names(n), plan: plan)
        try rig.start()
        #expect(rig.take.machine.phase.name == "counting down")
        let t0 = try #require(rig.take.t0)
        try rig.run(for: t0 - rig.clock.now + into)
        #expect(rig.take.machine.phase.name == "recording")
        return (rig, t0)
    }

    static func took(_ started: ContinuousClock.Instant, _ what: String) {
        let d = ContinuousClock.now - started
        print(String(format: "%@: %.0f ms of real time", what, Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000))
    }

    /// Frames a camera holds from T0 to `stop` at 30 fps.
    static func frames(to stop: Int64) -> Int { Int(FrameRate.fps30.firstFrame(atOrAfter: stop)) }

    @Test(arguments: sizes)
    func aTakeGoesFromPrepareToItsFiles(n: Int) async throws {
        let started = ContinuousClock.now
        let (rig, t0) = try Self.recording(n, into: 3 * Self.second + 450_000_000)
        try rig.stop()
        let stop = try #require(rig.take.stopShared)
        try rig.run(for: stop - rig.clock.now + Self.second)
        #expect(rig.take.machine.phase.name == "finalising")
        let result = try #require(await rig.finalised())
        #expect(rig.take.machine.phase == .done)
        #expect(result.perCameraFiles.count == n)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result.manifestFile))) as? [String: Any]
        let cameras = try #require(manifest?["cameras"] as? [[String: Any]])
        let held = cameras.compactMap { ($0["statistics"] as? [String: Any])?["framesCaptured"] as? Int }
        #expect(held == Array(repeating: Self.frames(to: stop - t0), count: n), "\(held)")
        for file in result.perCameraFiles {
            #expect(try MediaDemuxer(path: file).videoParameters.width == 160)
        }
        #expect(FileManager.default.fileExists(atPath: result.combinedFile))
        #expect(rig.take.warnings.isEmpty, "\(rig.take.warnings)")
        Self.took(started, "\(n) agents, a 3.7 s take to its files")
    }

    @Test(arguments: sizes)
    func anAgentLostWhileRecordingFillsInWhenBack(n: Int) async throws {
        let started = ContinuousClock.now
        let (rig, t0) = try Self.recording(n, into: Self.second + 500_000_000)
        let last = n - 1
        rig.lose(last)
        #expect(rig.take.warnings.contains { $0.hasPrefix("lost node-\(last)") }, "\(rig.take.warnings)")
        try rig.run(for: 3 * Self.second)
        // Nothing arrives while it is away, and the take records on.
        #expect(rig.take.agents[last].receiver?.received.count == 1)
        #expect(rig.take.machine.phase.name == "recording")
        try rig.reconnect(last)
        #expect(rig.take.agents[last].receiver?.received.count == 4, "its spool is delivered at Resume")
        try rig.stop()
        let stop = try #require(rig.take.stopShared)
        try rig.run(for: 2 * Self.second)
        let result = try #require(await rig.finalised())
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result.manifestFile))) as? [String: Any]
        let cameras = try #require(manifest?["cameras"] as? [[String: Any]])
        let stats = try #require(cameras[last]["statistics"] as? [String: Any])
        #expect(stats["reconnects"] as? Int == 1)
        #expect((stats["missingSegments"] as? [Int] ?? []).isEmpty, "\(stats)")
        #expect(stats["framesCaptured"] as? Int == Self.frames(to: stop - t0))
        Self.took(started, "\(n) agents, one lost for 3 s and back")
    }

    @Test(arguments: sizes)
    func aTakeStoppedInItsCountdownLeavesNothing(n: Int) throws {
        let rig = InProcessAgents(agents: Self.names(n))
        try rig.start()
        let folder = rig.take.sessionDirectory
        #expect(FileManager.default.fileExists(atPath: folder))
        try rig.stop()
        try rig.run(for: Self.second)
        #expect(rig.take.machine.phase == .cancelled("stopped by the operator"))
        #expect(!FileManager.default.fileExists(atPath: folder), "a take that recorded nothing leaves no folder")
    }

    @Test(arguments: sizes)
    func anAgentNeverBackIsGivenUpAfterTheGrace(n: Int) async throws {
        let started = ContinuousClock.now
        let (rig, _) = try Self.recording(n, into: 2 * Self.second + 100_000_000) { $0.reconnectGraceSeconds = 5 }
        let last = n - 1
        rig.lose(last)
        try rig.run(for: Self.second)
        try rig.stop()
        let stop = try #require(rig.take.stopShared)
        // Waited for through the grace after the stop, then finished without it.
        try rig.run(for: stop - rig.clock.now + 4 * Self.second)
        #expect(rig.take.machine.phase.name == "stopping")
        try rig.run(for: 2 * Self.second)
        #expect(rig.take.machine.agents[last].gone)
        #expect(rig.take.warnings.contains { $0.hasPrefix("finishing without node-\(last): not back 5 s after the stop") },
                "\(rig.take.warnings)")
        let result = try #require(await rig.finalised())
        #expect(result.perCameraFiles.count == n)
        Self.took(started, "\(n) agents, one never back")
    }

    @Test(arguments: sizes)
    func aKilledCoordinatorsTakeIsFinishedByResume(n: Int) async throws {
        let started = ContinuousClock.now
        let (rig, t0) = try Self.recording(n, into: 2 * Self.second + 500_000_000)
        rig.killCoordinator()
        // The agents record on, unheard, while no coordinator runs.
        try rig.run(for: 2 * Self.second)
        try rig.resumeTake()
        #expect(rig.take.machine.phase == .recording(t0: t0, stop: nil))
        #expect(rig.take.agents.allSatisfy { $0.receiver?.received.count == 2 }, "what the killed coordinator held is kept")
        for i in 0..<n { try rig.reconnect(i) }
        #expect(rig.take.agents.allSatisfy { $0.receiver?.received.count == 4 }, "each spool is delivered at Resume")
        try rig.run(for: Self.second)
        try rig.stop()
        let stop = try #require(rig.take.stopShared)
        try rig.run(for: stop - rig.clock.now + Self.second)
        let result = try #require(await rig.finalised())
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result.manifestFile))) as? [String: Any]
        let cameras = try #require(manifest?["cameras"] as? [[String: Any]])
        let held = cameras.compactMap { ($0["statistics"] as? [String: Any])?["framesCaptured"] as? Int }
        #expect(held == Array(repeating: Self.frames(to: stop - t0), count: n), "every frame from T0 to the stop: \(held)")
        #expect(rig.notices.withLockedValue { $0 }.contains("  node-0: 2 segments held already"))
        Self.took(started, "\(n) agents, the coordinator killed and the take resumed")
    }
}
