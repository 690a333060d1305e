import Testing
@testable import DualCamCore

@Suite struct FramePairerTests {
    typealias Pairer = FramePairer<Int>

    /// Frame `i` of a stream at `rate`, starting at `phase`, presentation time.
    static func time(_ i: Int64, _ rate: FrameRate, phase: Int64 = 0) -> Int64 {
        rate.instant(ofFrame: i) + phase
    }

    static func kinds(_ ticks: [OutputTick<Int>], stream s: Int) -> String {
        String(ticks.map { tick -> Character in
            switch tick.frames[s] {
            case .frame: "F"
            case .repeated: "R"
            case .noSignal: "-"
            }
        })
    }

    @Test func noFramesAtAllGivesNoTicksUnlessAnEndIsAsked() {
        var empty = Pairer(streamCount: 2, rate: .fps30, latencyWindowNanoseconds: 1_000_000_000, repeatLimit: 3)
        empty.finishAll()
        #expect(empty.drainReady().isEmpty)
        var timed = Pairer(streamCount: 2, rate: .fps30, latencyWindowNanoseconds: 1_000_000_000, repeatLimit: 3)
        timed.finishAll(endPresentationNanoseconds: 1_000_000_000)
        let ticks = timed.drainReady()
        #expect(ticks.count == 30)
        #expect(ticks.allSatisfy { $0.frames.allSatisfy { if case .noSignal = $0 { true } else { false } } })
        #expect(timed.statistics.noSignal == 60)
    }

    @Test func anEmptyStreamShowsNoSignalBesideAFullOne() {
        var p = Pairer(streamCount: 2, rate: .fps30, latencyWindowNanoseconds: 500_000_000, repeatLimit: 3)
        for i in 0..<30 as Range<Int64> { p.push(stream: 1, presentationNanoseconds: Self.time(i, .fps30), payload: Int(i)) }
        // Stream 0 is silent but not finished: the window still lets out the ticks more
        // than 0.5 s older than the newest frame (966.7 ms).
        let live = p.drainReady()
        #expect(live.count == 14)
        p.finish(stream: 0)
        p.finish(stream: 1)
        let ticks = live + p.drainReady()
        #expect(ticks.map(\.index) == Array(0..<30))
        #expect(Self.kinds(ticks, stream: 0) == String(repeating: "-", count: 30))
        #expect(Self.kinds(ticks, stream: 1) == String(repeating: "F", count: 30))
        #expect(p.statistics.pairs == 0 && p.statistics.streams[1].framesUsed == 30)
    }

    /// A free-running camera whose first frame comes 20 ms after T0 (past half a period)
    /// is shown from the first tick: every free-run combined file began with a blank host.
    @Test func aCameraWhoseFirstFrameIsJustPastTheFirstTickIsShownFromIt() {
        var p = Pairer(streamCount: 2, rate: .fps30, latencyWindowNanoseconds: 500_000_000, repeatLimit: 3)
        for i in 0..<30 as Range<Int64> {
            p.push(stream: 0, presentationNanoseconds: Self.time(i, .fps30), payload: Int(i))
            p.push(stream: 1, presentationNanoseconds: Self.time(i, .fps30, phase: 20_000_000), payload: 100 + Int(i))
        }
        p.finishAll()
        let ticks = p.drainReady()
        #expect(Self.kinds(ticks, stream: 1).hasPrefix("FFF") && p.statistics.noSignal == 0, "\(Self.kinds(ticks, stream: 1))")
        guard case .frame(100, let early) = ticks[0].frames[1], case .frame(100, let own) = ticks[1].frames[1] else {
            Issue.record("the first frame is not shown at ticks 0 and 1: \(ticks.prefix(2).map(\.frames))")
            return
        }
        #expect(early == 20_000_000 && own == 20_000_000 - 33_333_333)
        // Only a stream's start: a stream that went silent and came back shows no signal
        // until its own frames' ticks (aStreamThatStallsIsRepeatedThenShownAsNoSignal).
    }

    @Test func aSingleFrameIsShownThenRepeatedThenGone() {
        var p = Pairer(streamCount: 1, rate: .fps25, latencyWindowNanoseconds: 0, repeatLimit: 5)
        p.push(stream: 0, presentationNanoseconds: 10_000_000, payload: 7)
        p.finishAll(endPresentationNanoseconds: 400_000_000)
        let ticks = p.drainReady()
        #expect(Self.kinds(ticks, stream: 0) == "FRRRRR----")
        guard case .frame(7, let error) = ticks[0].frames[0] else { Issue.record("no frame"); return }
        #expect(error == 10_000_000)
        #expect(ticks[3].frames[0].payload == 7)
    }

    @Test func duplicateTimestampsKeepTheFirst() {
        var p = Pairer(streamCount: 1, rate: .fps30, latencyWindowNanoseconds: 0, repeatLimit: 0)
        p.push(stream: 0, presentationNanoseconds: 0, payload: 1)
        p.push(stream: 0, presentationNanoseconds: 0, payload: 2)
        p.push(stream: 0, presentationNanoseconds: 33_333_333, payload: 3)
        p.push(stream: 0, presentationNanoseconds: 33_333_333, payload: 4)
        p.finishAll()
        let ticks = p.drainReady()
        #expect(ticks.map { $0.frames[0].payload } == [1, 3])
        #expect(p.statistics.droppedFrames == 2)
    }

    @Test func theNearestFrameWinsItsTickAndHalfWayGoesLater() {
        var p = Pairer(streamCount: 1, rate: .fps25, latencyWindowNanoseconds: 0, repeatLimit: 0)
        p.push(stream: 0, presentationNanoseconds: 15_000_000, payload: 1)
        p.push(stream: 0, presentationNanoseconds: -5_000_000, payload: 2)  // nearer to tick 0
        p.push(stream: 0, presentationNanoseconds: 20_000_000, payload: 3)  // exactly half-way
        p.push(stream: 0, presentationNanoseconds: -20_000_001, payload: 4)  // belongs to tick -1
        p.finishAll()
        let ticks = p.drainReady()
        #expect(ticks.count == 2)
        guard case .frame(2, -5_000_000) = ticks[0].frames[0], case .frame(3, -20_000_000) = ticks[1].frames[0] else {
            Issue.record("wrong choice: \(ticks.map(\.frames))")
            return
        }
        #expect(p.statistics.droppedFrames == 2)
    }

    @Test func aTenSecondGapRepeatsThenShowsNoSignalWhileTheOtherStreamFlows() {
        var p = Pairer(streamCount: 2, rate: .fps30, latencyWindowNanoseconds: 2_000_000_000, repeatLimit: 15)
        var ticks: [OutputTick<Int>] = []
        var worstLag: Int64 = 0
        for i in 0..<600 as Range<Int64> {
            let t = Self.time(i, .fps30)
            p.push(stream: 0, presentationNanoseconds: t, payload: Int(i))
            if i < 150 || i >= 450 { p.push(stream: 1, presentationNanoseconds: t + 2_000_000, payload: Int(i)) }
            ticks += p.drainReady()
            worstLag = max(worstLag, t - (ticks.last?.presentationNanoseconds ?? 0))
        }
        #expect(worstLag <= 2_000_000_000 + 33_333_334)
        p.finishAll()
        ticks += p.drainReady()
        #expect(ticks.count == 600)
        let expected = String(repeating: "F", count: 150) + String(repeating: "R", count: 15)
            + String(repeating: "-", count: 285) + String(repeating: "F", count: 150)
        #expect(Self.kinds(ticks, stream: 1) == expected)
        let s = p.statistics
        #expect(s.pairs == 300 && s.repeats == 15 && s.noSignal == 285 && s.droppedFrames == 0)
        #expect(s.pairSpread.maxNanoseconds == 2_000_000 && s.pairSpread.p50Nanoseconds == 2_000_000)
    }

    @Test func ntscAgainstThirtyOverAnHour() {
        let hour: Int64 = 3_600_000_000_000
        var p = Pairer(streamCount: 2, rate: .fps30, latencyWindowNanoseconds: 1_000_000_000, repeatLimit: 2)
        var ticks = 0, repeatedTicks: [Int64] = [], worstPending = 0
        var a: Int64 = 0, b: Int64 = 0
        while true {
            let ta = Self.time(a, .ntsc30, phase: 5_123_457), tb = Self.time(b, .fps30)
            if ta >= hour && tb >= hour { break }
            // Push whichever is earlier, so both arrive in step as they would live.
            if ta <= tb { p.push(stream: 0, presentationNanoseconds: ta, payload: Int(a)); a += 1 }
            else { p.push(stream: 1, presentationNanoseconds: tb, payload: Int(b)); b += 1 }
            for tick in p.drainReady() {
                ticks += 1
                if case .repeated = tick.frames[0] { repeatedTicks.append(tick.index) }
            }
            worstPending = max(worstPending, p.pendingFrames)
        }
        p.finishAll(endPresentationNanoseconds: hour)
        ticks += p.drainReady().count
        let s = p.statistics
        #expect(ticks == 108_000)
        // 29.97 fps falls one frame behind every 1001 ticks: that many repeats, no drops.
        #expect(s.streams[0].framesReceived == Int(a) && Int(a) == 107_892)
        #expect(s.streams[0].repeats == 108_000 - 107_892 && s.streams[0].droppedFrames == 0)
        #expect(s.streams[1].framesUsed == 108_000 && s.noSignal == 0)
        #expect(s.pairs == 107_892)
        // Evenly: every 1001 ticks, give or take the nanosecond flooring of both grids.
        #expect(zip(repeatedTicks, repeatedTicks.dropFirst()).allSatisfy { (1000...1002).contains($1 - $0) })
        #expect(s.frameError.maxNanoseconds <= 16_666_667)
        #expect(worstPending <= 4)
    }

    @Test func outOfStepArrivalGivesTheSameTicks() {
        func run(_ order: [(stream: Int, index: Int64)]) -> [String] {
            var p = FramePairer<Int64>(streamCount: 2, rate: .fps25, latencyWindowNanoseconds: 10_000_000_000, repeatLimit: 1)
            var out: [String] = []
            for (s, i) in order {
                p.push(stream: s, presentationNanoseconds: Self.time(i, .fps25, phase: s == 0 ? 3_000_000 : -7_000_000), payload: i)
                out += p.drainReady().map { "\($0.index):\($0.frames.map { $0.payload ?? -1 })" }
            }
            p.finishAll()
            return out + p.drainReady().map { "\($0.index):\($0.frames.map { $0.payload ?? -1 })" }
        }
        let frames = (0..<200 as Range<Int64>).filter { $0 % 17 != 5 }  // a few drops
        let inStep = frames.flatMap { [(stream: 0, index: $0), (stream: 1, index: $0)] }
        // Stream 1 arrives in bursts of 25 frames (segments), up to 3 s behind stream 0.
        var late: [(stream: Int, index: Int64)] = []
        var pendingSegment: [Int64] = []
        for (n, i) in frames.enumerated() {
            late.append((stream: 0, index: i))
            if n >= 75 { pendingSegment.append(frames[n - 75]) }
            if pendingSegment.count == 25 {
                late += pendingSegment.map { (stream: 1, index: $0) }
                pendingSegment.removeAll()
            }
        }
        late += (pendingSegment + frames.suffix(75)).map { (stream: 1, index: $0) }
        let expected = run(inStep)
        #expect(expected.count == 200)
        #expect(run(late) == expected)
    }

    @Test func aFrameArrivingAfterItsTickIsDroppedAsLate() {
        var p = Pairer(streamCount: 1, rate: .fps30, latencyWindowNanoseconds: 1_000_000_000, repeatLimit: 1)
        p.push(stream: 0, presentationNanoseconds: Self.time(1, .fps30), payload: 1)
        p.push(stream: 0, presentationNanoseconds: Self.time(2, .fps30), payload: 2)
        // Frames are expected in order within a stream: frame 2 lets ticks 0 and 1 go.
        #expect(p.drainReady().map { $0.frames[0].payload } == [nil, 1])
        p.push(stream: 0, presentationNanoseconds: Self.time(0, .fps30), payload: 0)
        #expect(p.statistics.streams[0].droppedFrames == 1)
    }

    @Test func aStreamEndingEarlyDoesNotHoldTheOthers() {
        var p = Pairer(streamCount: 3, rate: .fps30, latencyWindowNanoseconds: 60_000_000_000, repeatLimit: 10)
        var ticks: [OutputTick<Int>] = []
        for i in 0..<300 as Range<Int64> {
            for s in 0..<3 where s != 2 || i < 90 {
                p.push(stream: s, presentationNanoseconds: Self.time(i, .fps30, phase: Int64(s) * 1_000_000), payload: s)
            }
            if i == 89 { p.finish(stream: 2) }
            ticks += p.drainReady()
        }
        // Without the finish, a 60 s window would have held everything back.
        #expect(ticks.count == 299)
        p.finish(stream: 0)
        p.finish(stream: 1)
        ticks += p.drainReady()
        #expect(ticks.count == 300)
        #expect(Self.kinds(ticks, stream: 2) == String(repeating: "F", count: 90) + String(repeating: "R", count: 10)
            + String(repeating: "-", count: 200))
        #expect(p.statistics.pairs == 90 && p.statistics.pairSpread.maxNanoseconds == 2_000_000)
    }

    @Test func memoryStaysBoundedWhileAStreamStalls() {
        var p = Pairer(streamCount: 2, rate: .fps60, latencyWindowNanoseconds: 1_000_000_000, repeatLimit: 0)
        var emitted = 0, worst = 0
        for i in 0..<3600 as Range<Int64> {
            p.push(stream: 0, presentationNanoseconds: Self.time(i, .fps60), payload: 0)
            emitted += p.drainReady().count
            worst = max(worst, p.pendingFrames)
        }
        #expect(worst <= 62)
        #expect(emitted >= 3600 - 61)
        // The stalled stream finally delivers: everything it sends is already too late.
        for i in 0..<100 as Range<Int64> { p.push(stream: 1, presentationNanoseconds: Self.time(i, .fps60), payload: 1) }
        #expect(p.statistics.streams[1].droppedFrames == 100)
        #expect(p.pendingFrames <= 62)
    }

    @Test func theCompositeEndsWhereAsked() {
        var short = Pairer(streamCount: 2, rate: .fps25, latencyWindowNanoseconds: 1_000_000_000, repeatLimit: 2)
        for i in 0..<250 as Range<Int64> {
            for s in 0..<2 { short.push(stream: s, presentationNanoseconds: Self.time(i, .fps25), payload: Int(i)) }
        }
        short.finishAll(endPresentationNanoseconds: 5_000_000_000)
        let ticks = short.drainReady()
        #expect(ticks.count == 125 && ticks.last?.index == 124)
        #expect(short.statistics.droppedFrames == 250)
        #expect(short.drainReady().isEmpty)

        var long = Pairer(streamCount: 1, rate: .fps25, latencyWindowNanoseconds: 1_000_000_000, repeatLimit: 2)
        for i in 0..<25 as Range<Int64> { long.push(stream: 0, presentationNanoseconds: Self.time(i, .fps25), payload: Int(i)) }
        long.finishAll(endPresentationNanoseconds: 2_000_000_000)
        #expect(Self.kinds(long.drainReady(), stream: 0) == String(repeating: "F", count: 25) + "RR"
            + String(repeating: "-", count: 23))
    }

    @Test func errorDistributionIsSummarised() {
        var p = Pairer(streamCount: 1, rate: .fps30, latencyWindowNanoseconds: 0, repeatLimit: 0)
        // Errors 0, 1, ..., 99 µs, alternating sign.
        for i in 0..<100 as Range<Int64> {
            let e = (i % 2 == 0 ? 1 : -1) * i * 1_000
            p.push(stream: 0, presentationNanoseconds: Self.time(i, .fps30) + e, payload: 0)
        }
        p.finishAll()
        _ = p.drainReady()
        let d = p.statistics.frameError
        #expect(d.count == 100 && d.maxNanoseconds == 99_000)
        #expect(d.meanNanoseconds == 49_500)
        #expect(d.p50Nanoseconds == 50_000 && d.p99Nanoseconds == 99_000)
    }
}
