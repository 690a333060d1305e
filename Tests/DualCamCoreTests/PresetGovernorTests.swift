import DualCamCore
import Testing

struct PresetChoiceTests {
    let speeds = [PresetSpeed(preset: "ultrafast", framesPerSecond: 200), PresetSpeed(preset: "superfast", framesPerSecond: 120),
                  PresetSpeed(preset: "veryfast", framesPerSecond: 80), PresetSpeed(preset: "faster", framesPerSecond: 40)]

    @Test func theSlowestPresetWithHeadroomIsChosen() {
        // 80 fps is 2.7x real time at 30; 40 fps only 1.33x.
        #expect(PresetChoice.choose(speeds, rate: .fps30) == .fits(preset: "veryfast", speed: 80.0 / 30))
        // At 60 fps only ultrafast and superfast have 1.5x (90 fps).
        #expect(PresetChoice.choose(speeds, rate: .fps60).preset == "superfast")
    }

    @Test func underTheHeadroomTheFastestIsTightAndUnderRealTimeNothing() {
        #expect(PresetChoice.choose(speeds, rate: FrameRate(150)) == .tight(preset: "ultrafast", speed: 200.0 / 150))
        #expect(PresetChoice.choose(speeds, rate: FrameRate(240)) == .cannot(speed: 200.0 / 240))
        #expect(PresetChoice.choose([], rate: .fps30) == .cannot(speed: 0))
    }

    @Test func theMeasurementStopsAtTheFirstPresetShortOfTheHeadroom() {
        #expect(PresetChoice.worthTryingSlower(than: PresetSpeed(preset: "veryfast", framesPerSecond: 46), rate: .fps30))
        #expect(!PresetChoice.worthTryingSlower(than: PresetSpeed(preset: "veryfast", framesPerSecond: 44), rate: .fps30))
    }

    /// A node that shares its cores (the demo's agents, with the coordinator and a browser
    /// on the same machine) asks for more headroom: a faster preset, measured no further.
    @Test func aLargerHeadroomChoosesAFasterPreset() {
        // veryfast 80 fps is 2.67x real time at 30: enough for 2.5, not for 3.
        #expect(PresetChoice.choose(speeds, rate: .fps30, headroom: 2.5) == .fits(preset: "veryfast", speed: 80.0 / 30))
        #expect(PresetChoice.choose(speeds, rate: .fps30, headroom: 3) == .fits(preset: "superfast", speed: 4))
        #expect(PresetChoice.worthTryingSlower(than: PresetSpeed(preset: "veryfast", framesPerSecond: 80), rate: .fps30))
        #expect(!PresetChoice.worthTryingSlower(than: PresetSpeed(preset: "veryfast", framesPerSecond: 80), rate: .fps30, headroom: 3))
    }

    @Test func capacityNamesTheModesThatFit() {
        let capacity = EncoderCapacity(speeds: [(640, 360, 300), (1920, 1080, 30), (1280, 720, 70)])
        #expect(capacity.speeds.map(\.width) == [1920, 1280, 640])
        // 1080p: 30/1.5 = 20 fps; 720p: 46 → 30 (capped at the rate asked); 360p: 30.
        #expect(capacity.modesThatFit(upTo: .fps30) == [CaptureMode(width: 1920, height: 1080, rate: FrameRate(20)),
                                                        CaptureMode(width: 1280, height: 720, rate: .fps30),
                                                        CaptureMode(width: 640, height: 360, rate: .fps30)])
        #expect(capacity.advice(upTo: .fps30) == "1920x1080 at 20 fps or 1280x720 at 30 fps")
        #expect(EncoderCapacity(speeds: [(1280, 720, 9)]).advice(upTo: .fps30) == nil)
    }
}

struct PresetGovernorTests {
    let period = FrameRate.fps30.periodNanoseconds
    let segment: Int64 = 2_000_000_000
    let speeds = [PresetSpeed(preset: "ultrafast", framesPerSecond: 240), PresetSpeed(preset: "superfast", framesPerSecond: 150),
                  PresetSpeed(preset: "veryfast", framesPerSecond: 100), PresetSpeed(preset: "faster", framesPerSecond: 60)]

    /// One segment of frames each taking `load` of the period, ending at `end`.
    /// `queue`: its depth at each of the 60 frames.
    func feed(_ governor: inout PresetGovernor, load: Double, queue: (Int) -> Int = { _ in 0 }, end: Int64) -> PresetGovernor.Decision {
        for k in 0..<60 {
            governor.frameEncoded(encodeNanoseconds: Int64(Double(period) * load), queueDepth: queue(k), queueCapacity: 9)
        }
        return governor.segmentBoundary(now: end)
    }

    @Test func aCalmNodeKeepsItsPreset() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        for k in 1...30 { #expect(feed(&governor, load: 0.4, end: Int64(k) * segment) == .keep) }
        #expect(governor.current == "veryfast")
    }

    @Test func aBusyNodeStepsAsFarAsTheMeasuredSpeedsSay() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        #expect(feed(&governor, load: 0.5, end: segment) == .keep)
        // 1.2 at veryfast: superfast predicts 0.8 (over the 0.67 target), ultrafast 0.5.
        guard case .switchTo(let preset, let reason) = feed(&governor, load: 1.2, end: 2 * segment) else {
            Issue.record("a lagging encoder must switch")
            return
        }
        #expect(preset == "ultrafast")
        #expect(reason.contains("120 %"))
        #expect(governor.current == "ultrafast")
    }

    /// The live composite (issue 19): part of each frame is decoding the cameras, which no
    /// preset changes. The load counts it; the prediction scales only the encode, so the
    /// governor steps further than a whole-frame scaling would.
    @Test func workNoPresetChangesCountsInTheLoadButNotInThePrediction() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        for _ in 0..<60 {
            governor.frameEncoded(encodeNanoseconds: Int64(Double(period) * 0.45), fixedNanoseconds: Int64(Double(period) * 0.45),
                                  queueDepth: 0, queueCapacity: 0)
        }
        #expect(abs(governor.load - 0.9) < 0.001)
        // At superfast the encode would take 0.45 × 100/150 = 0.3, with the fixed 0.45: 0.75,
        // over the 0.67 target; at ultrafast 0.19 + 0.45 = 0.64. (Scaling all of 0.9 would
        // have stopped at superfast: 0.6.)
        guard case .switchTo(let preset, let reason) = governor.segmentBoundary(now: segment) else {
            Issue.record("a composite at 90 % of its time must step")
            return
        }
        #expect(preset == "ultrafast")
        #expect(reason.contains("90 %"))
        #expect(abs(governor.predict(0.9, from: "veryfast", to: "superfast", fixedShare: 0.5) - 0.75) < 0.001)
    }

    @Test func aFillingQueueOrLostFramesCountAsLagging() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        #expect(feed(&governor, load: 0.6, queue: { $0 / 10 }, end: segment) == .switchTo(
            preset: "superfast", reason: "the encoder needed 60 % of each frame's time at veryfast, its queue 56 % full"))
        governor.framesLost(3)
        guard case .switchTo(let preset, let reason) = feed(&governor, load: 0.3, end: 2 * segment) else {
            Issue.record("lost frames must switch")
            return
        }
        #expect(preset == "ultrafast")
        #expect(reason.contains("3 frames lost"))
    }

    @Test func atTheFastestPresetItSaysTheNodeFallsShort() {
        var governor = PresetGovernor(chosen: "ultrafast", rate: .fps30, speeds: speeds)
        #expect(feed(&governor, load: 1.4, end: segment) == .keep)
        #expect(governor.shortfall == "even ultrafast needs 140 % of each frame's time")
        #expect(feed(&governor, load: 0.5, end: 2 * segment) == .keep)
        #expect(governor.shortfall == nil)
    }

    @Test func itStepsBackOnlyAfterTheHoldAndACalmStretch() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        // 1.1 at veryfast: superfast predicts 0.73, over the target.
        #expect(feed(&governor, load: 1.1, end: segment) == .switchTo(
            preset: "ultrafast", reason: "the encoder needed 110 % of each frame's time at veryfast"))
        // Calm at once (0.2 at ultrafast predicts 0.32 at superfast), yet held 20 s.
        var steppedBackAt: Int64?
        for k in 2...20 {
            let decision = feed(&governor, load: 0.2, end: Int64(k) * segment)
            if case .switchTo(let preset, _) = decision {
                #expect(preset == "superfast")
                steppedBackAt = Int64(k) * segment
                break
            }
        }
        #expect(steppedBackAt == 11 * segment)
        // And back to veryfast after another calm 10 s, never slower than the choice.
        var later: [String] = []
        for k in 12...40 {
            if case .switchTo(let preset, _) = feed(&governor, load: 0.2, end: Int64(k) * segment) { later.append(preset) }
        }
        #expect(later == ["veryfast"])
        #expect(governor.current == "veryfast")
    }

    @Test func aLoadThatWouldBeTooHighAtTheSlowerPresetKeepsTheFasterOne() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        _ = feed(&governor, load: 1.1, end: segment)
        #expect(governor.current == "ultrafast")
        // 0.4 at ultrafast predicts 0.64 at superfast: over the calm limit of 0.55.
        for k in 2...40 { #expect(feed(&governor, load: 0.4, end: Int64(k) * segment) == .keep) }
        #expect(governor.current == "ultrafast")
    }

    @Test func unmeasuredPresetsAreEstimatedPerRung() {
        let governor = PresetGovernor(chosen: "medium", rate: .fps30, speeds: [])
        #expect(abs(governor.ratio(from: "medium", to: "faster") - 1 / (1.3 * 1.3)) < 1e-9)
        #expect(abs(governor.ratio(from: "veryfast", to: "fast") - 1.3 * 1.3) < 1e-9)
    }

    @Test func aFullQueueThatDrainsIsNoReasonToStepAgain() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        // The backlog a slower preset left, going down from 8 of 9.
        #expect(feed(&governor, load: 0.5, queue: { max(8 - $0 / 4, 0) }, end: segment) == .keep)
    }

    @Test func aFillingQueueIsUrgentOnceAFewFramesShowIt() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        for k in 0..<7 { governor.frameEncoded(encodeNanoseconds: 2 * period, queueDepth: k, queueCapacity: 9) }
        #expect(!governor.isUrgent)  // 7 frames: too few to judge the load
        governor.frameEncoded(encodeNanoseconds: 2 * period, queueDepth: 7, queueCapacity: 9)
        #expect(governor.isUrgent)
        // Decided mid-segment: load 2.0 at veryfast needs ultrafast (0.83 at superfast).
        guard case .switchTo(let preset, _) = governor.segmentBoundary(now: 300_000_000) else {
            Issue.record("an urgent decision must switch")
            return
        }
        #expect(preset == "ultrafast")
        // At the fastest preset nothing is urgent: there is nowhere to go.
        for k in 0..<20 { governor.frameEncoded(encodeNanoseconds: 2 * period, queueDepth: k % 10, queueCapacity: 9) }
        #expect(!governor.isUrgent)
    }

    @Test func estimatedAdviceScalesSizeAndRateByTheLoad() {
        // 1080p30 needing 140 %, aiming at 85 %: 0.61 of the pixels (1280x720 is 0.44, 1600x900
        // 0.69), 18 fps carried.
        #expect(EncoderCapacity.estimatedAdvice(width: 1920, height: 1080, rate: .fps30, load: 1.4)
            == "1280x720 at 30 fps or 1920x1080 at 15 fps")
        #expect(EncoderCapacity.estimatedAdvice(width: 640, height: 360, rate: .fps30, load: 2.5) == "640x360 at 10 fps")
        #expect(EncoderCapacity.estimatedAdvice(width: 640, height: 360, rate: .fps30, load: 5) == nil)
    }

    @Test func aBudgetCutMidSegmentIsJudgedByTheLatestFrames() {
        var governor = PresetGovernor(chosen: "faster", rate: .fps30, speeds: speeds)
        for _ in 0..<50 { governor.frameEncoded(encodeNanoseconds: period / 2, queueDepth: 0, queueCapacity: 9) }
        // The CPU budget drops: each frame now takes twice its period and the queue fills.
        for k in 1...8 { governor.frameEncoded(encodeNanoseconds: 2 * period, queueDepth: k / 2 + 1, queueCapacity: 9) }
        #expect(governor.isUrgent)
        // The window's mean is 0.71; the latest frames say 2.0: ultrafast (0.5), not veryfast.
        guard case .switchTo(let preset, _) = governor.segmentBoundary(now: 2_000_000_000) else {
            Issue.record("an urgent decision must switch")
            return
        }
        #expect(preset == "ultrafast")
    }

    @Test func dropsWhileABacklogDrainsAtTheFastestPresetAreNoShortfall() {
        var governor = PresetGovernor(chosen: "ultrafast", rate: .fps30, speeds: speeds)
        governor.framesLost(4)
        #expect(feed(&governor, load: 0.4, end: segment) == .keep)
        #expect(governor.shortfall == nil)
    }

    @Test func framesThatWaitedLongKeepItFromSteppingBack() {
        var governor = PresetGovernor(chosen: "veryfast", rate: .fps30, speeds: speeds)
        _ = feed(&governor, load: 1.1, end: segment)
        // Each frame encodes in a fifth of the period, yet a CPU quota held some 80 ms
        // after their capture: no step back however long it lasts.
        for k in 2...40 {
            for n in 0..<60 {
                governor.frameEncoded(encodeNanoseconds: period / 5, queueDepth: 0, queueCapacity: 9,
                                      latencyNanoseconds: n % 10 == 0 ? 80_000_000 : 10_000_000)
            }
            #expect(governor.segmentBoundary(now: Int64(k) * segment) == .keep)
        }
        #expect(governor.current == "ultrafast")
    }
}

struct EncodableFitTests {
    let wanted = CaptureMode(width: 1920, height: 1080, rate: .fps30)

    @Test func nodesThatNeverRefusedChangeNothing() {
        #expect(EncodableFit.fit(wanted, nodes: [[], []], lowersRate: true) == wanted)
    }

    @Test func theSlowestNodeSetsTheSize() {
        let guest = [CaptureMode(width: 1920, height: 1080, rate: FrameRate(20)), CaptureMode(width: 1280, height: 720, rate: .fps30)]
        #expect(EncodableFit.fit(wanted, nodes: [[], guest], lowersRate: false) == CaptureMode(width: 1280, height: 720, rate: .fps30))
        // Two slow nodes: the smaller of what each fits.
        let other = [CaptureMode(width: 960, height: 540, rate: .fps30)]
        #expect(EncodableFit.fit(wanted, nodes: [other, guest], lowersRate: false) == CaptureMode(width: 960, height: 540, rate: .fps30))
    }

    @Test func theRateIsLoweredOnlyWhenAllowedAndNoSizeFits() {
        let weak = [CaptureMode(width: 1920, height: 1080, rate: FrameRate(15)), CaptureMode(width: 640, height: 360, rate: FrameRate(25))]
        #expect(EncodableFit.fit(wanted, nodes: [weak], lowersRate: false) == nil)
        #expect(EncodableFit.fit(wanted, nodes: [weak], lowersRate: true) == CaptureMode(width: 640, height: 360, rate: .fps25))
    }
}
