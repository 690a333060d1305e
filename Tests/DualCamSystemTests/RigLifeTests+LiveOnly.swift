import DualCamCore
import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import DualCamCoordinator

/// Live without recording on the production rig, simulated time: Go live with no take
/// streams and keeps nothing; Record while it runs keeps it. The stream itself (a real
/// receiver) is the end-to-end tests' (`LiveOutTests`).
extension RigLifeTests {
    /// Nobody listens there: the take's stream retries on its own thread, as with a
    /// platform that is down, and the take does not notice.
    static let deadStream = try! StreamDestination("rtmp://127.0.0.1:9/live/key")

    /// Counts what the rig asks to be freed, instead of opening connections to the
    /// in-process agents' made-up addresses (`SpoolForgetter` is tested end to end).
    final class CountingForgetter: SpoolForgetting {
        let asked = NIOLockedValueBox<[String: [String]]>([:])
        func forget(sessionID: String, agents: [SessionRecord.Agent]) async -> [AgentCopy] {
            asked.withLockedValue { $0[sessionID] = agents.map(\.name) }
            return agents.map { AgentCopy(agent: $0, outcome: .freed(bytes: 1000)) }
        }
    }

    /// The take's status once it is over.
    static func over(_ rig: InProcessRig) async throws -> TakeStatus {
        let ended = Task { [rig] () throws -> TakeStatus in
            for await snapshot in rig.rig.snapshots() {
                if let take = snapshot.take, take.isOver { return take }
            }
            throw RigTestTimeout(seconds: 0)
        }
        return try await rig.drive(ended)
    }

    /// A rig of two gone live with no take, `seconds` of simulated time ago.
    static func goneLive(for seconds: Int64) async throws -> (InProcessRig, TakePlan, CountingForgetter) {
        let forgetter = CountingForgetter()
        let rig = try await connected(2, forgetter: forgetter)
        let plan = rig.plan(seconds: nil) { $0.streams = [deadStream] }
        try await rig.rig.perform(.goLive(plan))
        await rig.run(for: seconds * second)
        return (rig, plan, forgetter)
    }

    @Test func goLiveWithNoTakeStreamsAndKeepsNothing() async throws {
        let started = ContinuousClock.now
        let (rig, _, forgetter) = try await Self.goneLive(for: 3)
        let live = try #require(await rig.rig.snapshot().take)
        #expect(live.phase == .recording && live.liveOnly && live.liveOut.count == 1, "\(live.phase) \(live.liveOnly)")
        let session = try #require(live.sessionID)
        #expect(FileManager.default.fileExists(atPath: rig.out + "/" + session))
        try await rig.rig.perform(.live(false))
        let over = try await Self.over(rig)
        #expect(over.phase == .done && over.files == nil && over.liveOnly, "\(over.phase) \(over.reason ?? "")")
        #expect(!FileManager.default.fileExists(atPath: rig.out + "/" + session), "the live take's folder is left")
        #expect(forgetter.asked.withLockedValue { $0 } == [session: Self.names(2)])
        let said = rig.notices.withLockedValue { $0 }
        #expect(said.contains("nothing kept: this take was live without recording"), "\(said)")
        Self.took(started, "rig of 2, live without recording and ended")
    }

    @Test func recordWhileLiveOnlyKeepsTheTakeFromWhenItWentLive() async throws {
        let started = ContinuousClock.now
        let (rig, plan, forgetter) = try await Self.goneLive(for: 2)
        try await rig.rig.perform(.start(plan))
        #expect(await rig.rig.snapshot().take?.liveOnly == false)
        await rig.run(for: 2 * Self.second)
        try await rig.rig.perform(.stop(reason: "stopped by the operator"))
        let over = try await Self.over(rig)
        let files = try #require(over.files, "\(over.phase) \(over.reason ?? "")")
        #expect(files.kept && FileManager.default.fileExists(atPath: files.combinedFile))
        // Every frame from when it went live, not from Record: about 4 s of the 160x90 take.
        let frames = try Self.framesCaptured(files)
        #expect(frames.count == 2 && frames.allSatisfy { $0 >= 100 }, "\(frames)")
        #expect(forgetter.asked.withLockedValue { $0 }.isEmpty)
        Self.took(started, "rig of 2, live, then kept by Record")
    }

    /// Stop recording, stay live: the take's files are kept as at any stop, and a take
    /// that is only live follows it on the layout that was on air.
    @Test func stopRecordingKeepsTheFilesAndGoesOnLiveWithoutRecording() async throws {
        let started = ContinuousClock.now
        let forgetter = CountingForgetter()
        let rig = try await Self.connected(2, forgetter: forgetter)
        let plan = rig.plan(seconds: nil) { $0.streams = [Self.deadStream] }
        try await rig.rig.perform(.start(plan))
        await rig.run(for: 2 * Self.second)
        try await rig.rig.perform(.layout(LayoutSpec(kind: .grid)))
        let recorded = try #require(await rig.rig.snapshot().take?.sessionID)
        try await rig.rig.perform(.stopRecording(reason: "stopped by the operator"))
        await #expect(throws: RigError.self) { try await rig.rig.perform(.stopRecording(reason: "twice")) }
        let following = Task { [rig] () throws -> TakeStatus in
            for await snapshot in rig.rig.snapshots() {
                if let take = snapshot.take, take.sessionID != recorded, take.phase == .recording { return take }
            }
            throw RigTestTimeout(seconds: 0)
        }
        let live: TakeStatus
        do {
            live = try await rig.drive(following)
        } catch {
            Issue.record("no live take followed: \(rig.notices.withLockedValue { $0 })")
            throw error
        }
        #expect(live.liveOnly && live.liveOut.count == 1 && live.layout.hasPrefix("grid"), "\(live.liveOnly) \(live.layout)")
        // The recorded take's files: 2 s less the start's lead, about 45 frames on each camera.
        let manifest = rig.out + "/" + recorded + "/manifest.json"
        let frames = try Self.framesCaptured(manifest: manifest)
        #expect(frames.count == 2 && frames.allSatisfy { $0 >= 40 }, "\(frames)")
        // Only live now: Stop recording is refused, End live ends it and keeps nothing.
        await #expect(throws: RigError.self) { try await rig.rig.perform(.stopRecording(reason: "again")) }
        await rig.run(for: 2 * Self.second)
        let liveSession = try #require(live.sessionID)
        try await rig.rig.perform(.live(false))
        let over: TakeStatus
        do {
            over = try await Self.over(rig)
        } catch {
            let snap = await rig.rig.snapshot()
            Issue.record("the live take did not end: \(String(describing: snap.take?.phase)) \(snap.agents.map { "\($0.name) \($0.connection) complete \($0.complete)" }) \(rig.notices.withLockedValue { $0 }.suffix(3))")
            throw error
        }
        #expect(over.sessionID == liveSession && over.files == nil)
        #expect(!FileManager.default.fileExists(atPath: rig.out + "/" + liveSession))
        #expect(FileManager.default.fileExists(atPath: manifest), "the recorded take must stay")
        #expect(forgetter.asked.withLockedValue { $0 } == [liveSession: Self.names(2)])
        Self.took(started, "rig of 2, Stop recording while live, then End live")
    }

    @Test func stopRecordingNeedsATakeThatIsLive() async throws {
        let rig = try await Self.connected(1)
        await #expect(throws: RigError.self) { try await rig.rig.perform(.stopRecording(reason: "no take")) }
        try await rig.rig.perform(.start(rig.plan(seconds: nil)))
        await rig.run(for: Self.second)
        // Recording but streaming nowhere: Stop is what ends it.
        await #expect(throws: RigError.self) { try await rig.rig.perform(.stopRecording(reason: "not live")) }
        #expect(await rig.rig.snapshot().take?.liveOnly == false)
    }

    @Test func goLiveNeedsSomewhereToStream() async throws {
        let rig = try await Self.connected(1)
        await #expect(throws: RigError.self) { try await rig.rig.perform(.goLive(rig.plan(seconds: nil))) }
        #expect(await rig.rig.snapshot().take == nil)
    }
}
