import DualCamCore
import DualCamMedia
import Foundation
import Testing
@testable import DualCamCoordinator

/// The production rig (its loop, its links' lives, its takes, reconnecting, the files) on
/// simulated time, its links opened to 1, 2 or 8 agents in this process: connect, record,
/// an agent cut off and reconnected by the rig's own schedule, an agent never back, a
/// countdown cancelled, an agent that never answers. What is left to the end-to-end tests
/// is what needs real processes and real time: TLS, signals, spools on disk, sync in the
/// files. Real-time cost printed per test.
@Suite struct RigLifeTests {
    static let second: Int64 = 1_000_000_000

    static func names(_ n: Int) -> [String] { (0..<n).map { $0 == 0 ? "host" : "guest-\($0)" } }

    static func took(_ started: ContinuousClock.Instant, _ what: String) {
        let d = ContinuousClock.now - started
        print(String(format: "%@: %.0f ms of real time", what, Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000))
    }

    static func cameras(_ result: TakeResult) throws -> [[String: Any]] { try cameras(manifest: result.manifestFile) }

    static func cameras(manifest path: String) throws -> [[String: Any]] {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return try #require(manifest?["cameras"] as? [[String: Any]])
    }

    /// Each camera's `statistics` field `key` in the take's manifest.
    static func statistic<T>(_ key: String, _ result: TakeResult, as: T.Type = Int.self) throws -> [T?] {
        try cameras(result).map { ($0["statistics"] as? [String: Any])?[key] as? T }
    }

    static func framesCaptured(_ result: TakeResult) throws -> [Int] { try framesCaptured(manifest: result.manifestFile) }

    static func framesCaptured(manifest path: String) throws -> [Int] {
        try cameras(manifest: path).compactMap { ($0["statistics"] as? [String: Any])?["framesCaptured"] as? Int }
    }

    static func connected(_ n: Int, lag: Int64 = 0, forgetter: (any SpoolForgetting)? = nil) async throws -> InProcessRig {
        let rig = InProcessRig(agents: names(n), lag: lag, forgetter: forgetter)
        let connecting = Task { try await rig.rig.connect() }
        _ = try await rig.drive(connecting, limit: 10 * second)
        return rig
    }

    @Test(arguments: [1, 2, 8])
    func aRigRecordsATakeToItsFiles(n: Int) async throws {
        let started = ContinuousClock.now
        let rig = try await Self.connected(n)
        let plan = rig.plan(seconds: 3)
        let result = try await rig.drive(Task { [rig] in try await rig.rig.record(plan) })
        #expect(result.perCameraFiles.count == n)
        #expect(try Self.framesCaptured(result) == Array(repeating: 90, count: n))
        for file in result.perCameraFiles {
            #expect(try MediaDemuxer(path: file).videoParameters.width == 160)
        }
        #expect(FileManager.default.fileExists(atPath: result.combinedFile))
        #expect(await rig.rig.snapshot().take?.phase == .done)
        #expect(!rig.notices.withLockedValue { $0 }.contains { $0.contains("warning") }, "\(rig.notices.withLockedValue { $0 })")
        Self.took(started, "rig of \(n), a 3 s take to its files")
    }

    @Test(arguments: [2, 8])
    func anAgentCutOffIsReconnectedByTheRigAndItsSpoolFillsIn(n: Int) async throws {
        let started = ContinuousClock.now
        let rig = try await Self.connected(n)
        let plan = rig.plan(seconds: 8)
        let recording = Task { [rig] in try await rig.rig.record(plan) }
        await rig.run(for: 3 * Self.second)
        let last = n - 1
        rig.agents.cut(last)
        await rig.run(for: 2 * Self.second)
        #expect(await rig.rig.snapshot().agents[last].connection != .connected)
        rig.agents.restore(last)
        // The rig's own schedule tries it again every half second (`ReconnectSchedule`).
        await rig.run(for: Self.second)
        #expect(await rig.rig.snapshot().agents[last].connection == .connected)
        let result = try await rig.drive(recording)
        #expect(try Self.framesCaptured(result) == Array(repeating: 240, count: n))
        #expect(rig.notices.withLockedValue { $0 }.contains("reconnected to \(Self.names(n)[last])"), "\(rig.notices.withLockedValue { $0 })")
        #expect(try Self.statistic("missingSegments", result, as: [Int].self) == Array(repeating: [], count: n))
        #expect(try Self.statistic("reconnects", result) == (0..<n).map { $0 == last ? 1 : 0 })
        Self.took(started, "rig of \(n), an agent cut for 2 s of an 8 s take")
    }

    @Test func anAgentNeverBackIsGivenUpAfterTheGraceAndTheFilesAreWritten() async throws {
        let started = ContinuousClock.now
        let rig = try await Self.connected(2)
        let plan = rig.plan(seconds: 4) { $0.reconnectGraceSeconds = 5 }
        let recording = Task { [rig] in try await rig.rig.record(plan) }
        await rig.run(for: 2 * Self.second)
        rig.agents.cut(1)
        let result = try await rig.drive(recording)
        let frames = try Self.framesCaptured(result)
        #expect(frames.first == 120, "\(frames)")
        #expect(rig.notices.withLockedValue { $0 }.contains { $0.contains("guest-1") && $0.contains("warning") }, "\(rig.notices.withLockedValue { $0 })")
        Self.took(started, "rig of 2, an agent never back")
    }

    /// `--reconnect-grace 0` means "do not wait for an agent that is gone", not "stop
    /// collecting at the stop": the last segments of connected agents, handed in a moment
    /// after the stop, still arrive (they were dropped, 2 s of every camera, with nothing
    /// listed missing). Moved here from SessionRecoveryTests: it is the take's logic.
    @Test func aGraceOfZeroStillCollectsWhatConnectedAgentsHold() async throws {
        let started = ContinuousClock.now
        let rig = try await Self.connected(2, lag: 700_000_000)
        let plan = rig.plan(seconds: 6) { $0.reconnectGraceSeconds = 0 }
        let result = try await rig.drive(Task { [rig] in try await rig.rig.record(plan) })
        #expect(try Self.framesCaptured(result) == [180, 180])
        #expect(try Self.statistic("missingSegments", result, as: [Int].self) == [[], []])
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result.manifestFile))) as? [String: Any]
        let composite = try #require(manifest?["composite"] as? [String: Any])
        #expect(composite["ticks"] as? Int == 180 && composite["pairs"] as? Int == 180 && composite["noSignal"] as? Int == 0, "\(composite)")
        for file in result.perCameraFiles + [result.combinedFile] {
            #expect(try MediaProbe.probe(path: file).frameCount == 180, "\(file)")
        }
        Self.took(started, "rig of 2, a 6 s take with a grace of 0")
    }

    @Test func aStopInTheCountdownCancelsLeavingNoFolder() async throws {
        let started = ContinuousClock.now
        let rig = try await Self.connected(2)
        let plan = rig.plan(seconds: nil) { $0.countdownSeconds = 5 }
        let recording = Task { [rig] in try await rig.rig.record(plan) }
        await rig.run(for: 2 * Self.second)
        #expect(await rig.rig.snapshot().take?.phase == .countdown)
        try await rig.rig.perform(.stop(reason: "stopped by the operator"))
        await #expect(throws: TakeCancelled.self) { try await rig.drive(recording) }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: rig.out)) ?? []
        #expect(left.filter { !$0.hasPrefix(".") }.isEmpty, "\(left)")
        // StartAt had gone out (T0 lay after the countdown); the Stop came before it, and
        // nothing was delivered.
        for i in 0..<2 {
            let agent = rig.agents.agent(i)
            let (stop, t0) = (try #require(agent.stop), try #require(agent.t0))
            #expect(stop <= t0 && agent.delivered.isEmpty && agent.finishedSent, "stop \(stop) t0 \(t0) \(agent.delivered)")
        }
        Self.took(started, "rig of 2, a countdown cancelled")
    }

    @Test func anAgentThatNeverAnswersFailsTheConnectNamingIt() async throws {
        let rig = InProcessRig(agents: Self.names(2))
        rig.agents.cut(1)
        let connecting = Task { try await rig.rig.connect() }
        await #expect {
            try await rig.drive(connecting, limit: 20 * Self.second)
        } throws: { error in
            "\(error)".contains("10.0.0.2:7000") && "\(error)".contains("connection refused")
        }
    }
}
