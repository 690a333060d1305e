import Testing
import DualCamCore

@Suite struct LayoutTimelineTests {
    @Test func changeAppliesFromTheNextFrameAtOrAfterIt() {
        let period = FrameRate.fps30
        var timeline = LayoutTimeline(initial: LayoutSpec(kind: .pip))
        // A change between frames 30 and 31 (frame 30 is at exactly 1 s).
        let changeAt = period.instant(ofFrame: 30) + 1
        timeline.change(at: changeAt, to: LayoutSpec(kind: .splitVertical))
        #expect(timeline.spec(at: period.instant(ofFrame: 30)).kind == .pip)
        #expect(timeline.spec(at: period.instant(ofFrame: 31)).kind == .splitVertical)
        // A change exactly on a frame's instant applies to that frame.
        timeline.change(at: period.instant(ofFrame: 60), to: LayoutSpec(kind: .grid))
        #expect(timeline.spec(at: period.instant(ofFrame: 59)).kind == .splitVertical)
        #expect(timeline.spec(at: period.instant(ofFrame: 60)).kind == .grid)
        #expect(timeline.spec(at: -5).kind == .pip)
    }

    @Test func changesStaySortedAndSameInstantReplaces() {
        var timeline = LayoutTimeline(initial: LayoutSpec(kind: .pip))
        timeline.change(at: 3_000, to: LayoutSpec(kind: .grid))
        timeline.change(at: 1_000, to: LayoutSpec(kind: .equal))
        timeline.change(at: 2_000, to: LayoutSpec(kind: .dominance))
        timeline.change(at: 2_000, to: LayoutSpec(kind: .splitHorizontal))
        #expect(timeline.entries.map(\.presentationNanoseconds) == [1_000, 2_000, 3_000])
        #expect(timeline.entries.map(\.spec.kind) == [.equal, .splitHorizontal, .grid])
        #expect(timeline.spec(at: 999).kind == .pip)
        #expect(timeline.spec(at: 2_500).kind == .splitHorizontal)
        #expect(timeline.spec(at: .max).kind == .grid)
        timeline.change(at: .min, to: LayoutSpec(kind: .equal))
        #expect(timeline.spec(at: .min).kind == .equal)
    }
}
