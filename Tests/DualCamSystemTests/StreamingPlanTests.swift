import DualCamCore
import Testing
@testable import DualCamCoordinator

/// A take that streams records 1 s segments (its programme is composed from them as they
/// arrive, so it is a segment late), while the programme's key frames stay 2 s apart.
@Suite struct StreamingPlanTests {
    @Test func streamingHalvesTheSegmentsAndKeepsTwoSecondKeyFrames() throws {
        var plan = TakePlan(agents: [], outputDirectory: "/tmp", durationSeconds: nil)
        #expect(plan.segmentMilliseconds == 2000 && plan.compositeGOPFrames == 60)
        plan.streams = [try StreamDestination("rtmp://127.0.0.1/live/key")]
        #expect(plan.segmentMilliseconds == 1000)
        #expect(plan.compositeGOPFrames == 60)
        plan.rate = .fps25
        #expect(plan.compositeGOPFrames == 50)
    }

    @Test func aLengthChosenOtherwiseIsKept() throws {
        var plan = TakePlan(agents: [], outputDirectory: "/tmp", durationSeconds: nil)
        plan.segmentMilliseconds = 4000
        plan.streams = [try StreamDestination("srt://127.0.0.1:9000")]
        #expect(plan.segmentMilliseconds == 4000 && plan.compositeGOPFrames == 120)
    }
}
