@testable import DualCamAgent
import DualCamCore
import DualCamNet
import Testing

/// The synthetic camera, genlocked or free-running, as the agent's pipeline sees it: each
/// frame's capture instant, and the DCTC code drawn in it from the true instant.
struct SyntheticSourceTests {
    static func frames(genlock: Bool, clock: AgentClock, count: Int) throws -> (t0: Int64, frames: [CapturedFrame]) {
        let t0 = MonotonicTime.now() + 50_000_000
        var source = SyntheticSource(width: 128, height: 72, rate: .fps30, genlock: genlock, clock: clock, startShared: SharedInstant(nanoseconds: t0))
        var frames: [CapturedFrame] = []
        for _ in 0..<count {
            frames.append(try #require(try source.next(stopLocalNanoseconds: { Int64?.none })))
        }
        return (t0, frames)
    }

    static func code(_ frame: CapturedFrame) -> UInt32? {
        guard case .picture(let picture) = frame.payload else { return nil }
        return DCTC.read(picture.image)
    }

    @Test func aGenlockedSourceCapturesOnTheSharedGrid() throws {
        let (t0, frames) = try Self.frames(genlock: true, clock: AgentClock(standaloneWith: .none), count: 4)
        let first = GenlockGrid(rate: .fps30).frameIndex(atOrAfter: t0 - FrameRate.fps30.periodNanoseconds / 2)
        #expect(frames.map(\.localCaptureNanoseconds) == (0..<4).map { FrameRate.fps30.instant(ofFrame: first + Int64($0)) })
        #expect(frames.map(Self.code) == frames.map { DCTC.code(trueNanoseconds: $0.localCaptureNanoseconds) })
        #expect(frames.allSatisfy { $0.droppedBefore == 0 })
    }

    /// Free-running, frames follow the node's own clock from a phase of their own: a
    /// frame period apart on the local clock, the first within one period of T0, and a
    /// simulated clock error shows in the codes (true time), not in the local instants.
    @Test func aFreeRunningSourceFollowsTheLocalClockAndCodesTrueTime() throws {
        let error = SimulatedClockError(offsetNanoseconds: 5_000_000, skewPPM: 200, processStartNanoseconds: MonotonicTime.now())
        let clock = AgentClock(standaloneWith: error)
        let (t0, frames) = try Self.frames(genlock: false, clock: clock, count: 4)
        let local = frames.map(\.localCaptureNanoseconds)
        let start = local[0]
        #expect(start >= t0 && start < t0 + FrameRate.fps30.periodNanoseconds, "first frame \(start - t0) ns after T0")
        #expect(local == (0..<4).map { start + FrameRate.fps30.instant(ofFrame: Int64($0)) })
        let codes = frames.map(Self.code)
        #expect(codes == local.map { DCTC.code(trueNanoseconds: error.trueTime(fromLocal: $0)) })
        // 5 ms of simulated offset: the code is not the local instant's.
        #expect(codes[0] != DCTC.code(trueNanoseconds: start))
    }

    /// The node's name and role reach the picture through the agent's settings, drawn
    /// where the label belongs, with the code still reading.
    @Test func theAgentsIdentityIsDrawnInItsFrames() throws {
        var settings = RecordingSettings(width: 640, height: 360)
        settings.patternIdentity = PatternIdentity(name: "node-7", role: "guest")
        var source = try SourceFactory.make(settings: settings, clock: AgentClock(standaloneWith: .none),
                                            gridFromShared: SharedInstant(nanoseconds: MonotonicTime.now() + 50_000_000))
        #expect(source.description.hasSuffix("labelled node-7 (guest)"))
        let frame = try #require(try source.next(stopLocalNanoseconds: { Int64?.none }))
        guard case .picture(let picture) = frame.payload else { throw SourceTestError.notAPicture }
        let code = DCTC.code(trueNanoseconds: frame.localCaptureNanoseconds)
        #expect(DCTC.read(picture.image) == code)
        var expected = YUV420Image(width: 640, height: 360)
        let pattern = SyntheticPattern(width: 640, height: 360, identity: settings.patternIdentity)
        pattern.render(frameIndex: 0, code: code, into: &expected)
        let plates = try #require(pattern.label?.plates)
        try #require(plates.count == 2)
        for r in plates.map(\.rect) {
            for y in r.y..<(r.y + r.height) {
                let row = (r.x..<(r.x + r.width))
                #expect(row.map { picture.image.luma($0, y) } == row.map { expected.luma($0, y) })
            }
        }
    }
}

enum SourceTestError: Error { case notAPicture }

/// Which frames start a session: a camera's frame is never moved to T0.
struct SessionStartTests {
    @Test func aFrameBeforeT0IsMovedToItOnlyWhenGenlockedAndWithinTheClockError() {
        #expect(RecordingPipeline.sessionTime(12_345, onTheGrid: false) == 12_345)
        #expect(RecordingPipeline.sessionTime(0, onTheGrid: false) == 0)
        // Genlocked, 4 µs early: the frame meant for T0.
        #expect(RecordingPipeline.sessionTime(-4_000, onTheGrid: true) == 0)
        #expect(RecordingPipeline.sessionTime(-2_000_000, onTheGrid: true) == nil)
        // A free-running camera's frame 0.4 ms before T0 was captured before the start:
        // recorded at 0 it would sit 0.4 ms from its true instant.
        #expect(RecordingPipeline.sessionTime(-400_000, onTheGrid: false) == nil)
        #expect(RecordingPipeline.sessionTime(-1, onTheGrid: false) == nil)
    }
}

/// Which segment a frame goes in.
struct SegmentSlotTests {
    @Test func aFrameMeantForASlotsFirstInstantOpensItWhateverItsClockError() {
        let sink = SegmentSink(sessionID: "s", spool: SegmentSpool(root: "/nonexistent"), segmentNanoseconds: 2_000_000_000,
                               periodNanoseconds: FrameRate.fps30.periodNanoseconds, reserveBytes: 0,
                               stats: PipelineStats(), onSegment: { _ in })
        // Frame 120 at 30 fps is meant for 4 s exactly: 4 µs early or late, it opens slot 2.
        #expect(sink.slot(ofPts: 4_000_000_000 - 4_000) == 2)
        #expect(sink.slot(ofPts: 4_000_000_000 + 4_000) == 2)
        // Frame 119 (3.967 s) and frame 0 stay where they were.
        #expect(sink.slot(ofPts: 3_966_666_667) == 1)
        #expect(sink.slot(ofPts: 0) == 0)
        #expect(sink.slot(ofPts: 1_966_666_667 + 4_000) == 0)
    }
}
