import DualCamCore
import DualCamNet
import DualCamProtocol
import DualCamTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
@testable import DualCamCoordinator

/// An agent refuses the Prepare with ERROR_TOO_SLOW (issue 19), naming what it measured to
/// fit: the take, fed what its connections deliver, re-plans within the same start.
@Suite(.serialized) struct SameTakeRefitTests {
    let out = NSTemporaryDirectory() + "dualcam-refit-\(getpid())"

    func tooSlow(_ take: Take) -> CoordinatorEvent {
        var error = Dualcam_V1_Error()
        error.code = .errorTooSlow
        error.sessionID = take.sessionID
        error.message = "pi-b: 1920x1080 at 30 fps cannot be recorded in real time on this node"
        error.fits = [CaptureMode(width: 1280, height: 720, rate: .fps30), CaptureMode(width: 1920, height: 1080, rate: FrameRate(20))]
            .map(Dualcam_V1_VideoSettings.init(mode:))
        return .prepareFailed(error)
    }

    /// Prepare to both; pi-a answers Ready, then pi-b refuses as too slow.
    func refusedAfterAReady(fromPreset: Bool) throws -> (Take, NIOLockedValueBox<[String]>) {
        let fixture = TakeFixture(out: out, agents: ["pi-a", "pi-b"]) { plan in
            (plan.fitsSizeToCameras, plan.fitsRateToCameras) = (fromPreset, fromPreset)
        }
        let take = fixture.take
        fixture.prepare()
        #expect(take.machine.phase.name == "preparing")
        try take.handle(TakeFixture.ready(take), from: 0, now: 2_000_000)
        try take.handle(tooSlow(take), from: 1, now: 3_000_000)
        return (take, fixture.notices)
    }

    @Test func aPresetsSizeIsLoweredAndEveryNodePreparedAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (take, notices) = try refusedAfterAReady(fromPreset: true)
        #expect((take.plan.width, take.plan.height, take.plan.rate) == (1280, 720, .fps30))
        #expect(notices.withLockedValue { $0 }.contains(
            "pi-b cannot encode 1920x1080 at 30 fps in real time: preparing every camera again at 1280x720 at 30 fps, "
                + "the most every node measured it can encode"), "\(notices.withLockedValue { $0 })")
        // pi-a, Ready at 1080p, is stopped first; nobody is left out of the take.
        #expect(take.machine.phase.name == "syncing clocks")
        #expect(take.machine.agents.allSatisfy { $0.inTake })
        // pi-a's RecordingFinished (it recorded nothing) brings the second Prepare, to both.
        var finished = Dualcam_V1_RecordingFinished()
        finished.sessionID = take.sessionID
        try take.handle(.recordingFinished(finished), from: 0, now: 4_000_000)
        #expect(take.machine.phase.name == "preparing")
        #expect(take.machine.agents.allSatisfy { $0.prepareSent && !$0.finished && !$0.complete })
        #expect(take.member(1).encodable == [CaptureMode(width: 1280, height: 720, rate: .fps30),
                                             CaptureMode(width: 1920, height: 1080, rate: FrameRate(20))])
        // Both Ready at 720p: the countdown starts, and no one was recorded without.
        try take.handle(TakeFixture.ready(take), from: 0, now: 5_000_000)
        try take.handle(TakeFixture.ready(take), from: 1, now: 5_000_000)
        #expect(take.machine.phase.name == "counting down")
        #expect(!take.warnings.contains { $0.contains("recording without") }, "\(take.warnings)")
    }

    @Test func theOperatorsSizeFailsTheTakeNamingWhatToPass() throws {
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (take, _) = try refusedAfterAReady(fromPreset: false)
        #expect((take.plan.width, take.plan.height) == (1920, 1080), "the operator's size was changed")
        guard case .failed(let reason) = take.machine.phase else {
            Issue.record("the take goes on: \(take.machine.phase)")
            return
        }
        #expect(reason.hasPrefix("pi-b cannot encode 1920x1080 at 30 fps in real time (pi-b measured it fits 1280x720 at 30 fps or "
                                 + "1920x1080 at 20 fps); pass --size 1280x720 to record at 1280x720 at 30 fps"), "\(reason)")
    }
}
