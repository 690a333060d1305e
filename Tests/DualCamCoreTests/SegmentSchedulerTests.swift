import DualCamCore
import Testing

@Suite struct SegmentSchedulerTests {
    let second: Int64 = 1_000_000_000

    func segment(_ stream: Int, _ index: Int, at seconds: Int64, length: Int64 = 2) -> SegmentScheduler.Segment {
        .init(stream: stream, index: index, firstPresentationNanoseconds: seconds * second, durationNanoseconds: length * second)
    }

    func released(_ segments: [SegmentScheduler.Segment]) -> [String] {
        segments.map { "\($0.stream):\($0.index)" }
    }

    @Test func aSegmentWaitsUntilEveryCameraHasReachedItsStart() {
        var scheduler = SegmentScheduler(streamCount: 2)
        scheduler.arrived(segment(0, 0, at: 0))
        scheduler.arrived(segment(0, 1, at: 2))
        #expect(scheduler.release().isEmpty)
        scheduler.arrived(segment(1, 0, at: 0))
        // Camera 1 is known up to 2 s: camera 0's segment starting at 2 s may go too.
        #expect(released(scheduler.release()) == ["0:0", "1:0", "0:1"])
        scheduler.arrived(segment(0, 2, at: 4))
        #expect(scheduler.release().isEmpty)
    }

    @Test func aLostCameraHoldsTheOthersUntilItsSpooledSegmentsArrive() {
        var scheduler = SegmentScheduler(streamCount: 2)
        scheduler.arrived(segment(1, 0, at: 0))
        for i in 0..<10 { scheduler.arrived(segment(0, i, at: Int64(2 * i))) }
        #expect(released(scheduler.release()) == ["0:0", "1:0", "0:1"])
        #expect(scheduler.waitingCount == 8)
        // The camera comes back; its spool fills the gap, out of order at first.
        scheduler.arrived(segment(1, 2, at: 4))
        #expect(scheduler.release().isEmpty)
        scheduler.arrived(segment(1, 1, at: 2))
        #expect(released(scheduler.release()) == ["1:1", "0:2", "1:2", "0:3"])
    }

    @Test func aCameraGivenUpOnHoldsNothingBack() {
        var scheduler = SegmentScheduler(streamCount: 3)
        scheduler.arrived(segment(0, 0, at: 0))
        scheduler.arrived(segment(1, 0, at: 0))
        #expect(scheduler.release().isEmpty)
        scheduler.stopAwaiting(stream: 2)
        #expect(released(scheduler.release()) == ["0:0", "1:0"])
    }

    @Test func aCameraThatRestartedLeavesAGapWithoutStallingTheComposite() {
        // Camera 1 died after 4 s and came back at 20 s: its next index starts there.
        var scheduler = SegmentScheduler(streamCount: 2)
        for i in 0..<12 { scheduler.arrived(segment(0, i, at: Int64(2 * i))) }
        scheduler.arrived(segment(1, 0, at: 0))
        scheduler.arrived(segment(1, 1, at: 2))
        #expect(released(scheduler.release()).count == 5)
        scheduler.arrived(segment(1, 2, at: 20))
        let order = released(scheduler.release())
        #expect(order == ["0:3", "0:4", "0:5", "0:6", "0:7", "0:8", "0:9", "0:10", "1:2", "0:11"])
    }

    @Test func atTheEndEverythingGoesInTimeOrderDespiteAMissingIndex() {
        var scheduler = SegmentScheduler(streamCount: 2)
        scheduler.arrived(segment(0, 0, at: 0))
        scheduler.arrived(segment(1, 0, at: 0))
        scheduler.arrived(segment(1, 2, at: 4))
        scheduler.arrived(segment(0, 1, at: 2))
        scheduler.arrived(segment(0, 2, at: 4))
        #expect(released(scheduler.release()) == ["0:0", "1:0", "0:1"])
        #expect(released(scheduler.releaseAll()) == ["0:2", "1:2"])
        #expect(scheduler.waitingCount == 0)
    }
}
