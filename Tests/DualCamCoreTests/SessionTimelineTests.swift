import Testing
@testable import DualCamCore

@Suite struct SessionTimelineTests {
    @Test func mapsSharedToPresentationAndBack() {
        let timeline = SessionTimeline(t0SharedNanoseconds: 5_000_000_000, rate: .fps25)
        #expect(timeline.presentationNanoseconds(shared: 5_040_000_000) == 40_000_000)
        #expect(timeline.shared(presentation: -1) == 4_999_999_999)
        #expect(timeline.outputTickInstant(25) == 1_000_000_000)
        #expect(timeline.outputTick(atOrAfterPresentation: 40_000_001) == 2)
        #expect(timeline.tickCount(durationNanoseconds: 1_000_000_000) == 25)
        #expect(timeline.tickCount(durationNanoseconds: 1_000_000_001) == 26)
    }

    @Test func ntscTicksNeverDriftOverAnHour() {
        let timeline = SessionTimeline(t0SharedNanoseconds: 0, rate: .ntsc30)
        // 108_000 frames of 1001/30000 s are exactly 3603.6 s.
        #expect(timeline.outputTickInstant(108_000) == 3_603_600_000_000)
        #expect(timeline.outputTickInstant(107_892) == 3_599_996_400_000)
        #expect(timeline.tickCount(durationNanoseconds: 3_600_000_000_000) == 107_893)
    }

    @Test func agentStampsThroughTheClockEstimate() {
        // A frame captured at local instant L maps to presentation shared(L) - T0.
        let estimate = ClockEstimate(offsetNanoseconds: -37_000_000, rate: -80e-6, referenceLocalNanoseconds: 10_000_000_000,
                                     errorBoundNanoseconds: 500_000, state: .locked, samplesUsed: 10)
        let timeline = SessionTimeline(t0SharedNanoseconds: 12_000_000_000, rate: .fps30)
        let local: Int64 = 12_037_000_000 + 1_000_000_000
        let p = timeline.presentationNanoseconds(shared: estimate.shared(fromLocal: LocalInstant(nanoseconds: local)).nanoseconds)
        #expect(p == 1_000_000_000 - 242_960)  // 80 ppm over the 3.037 s since the reference
    }
}
