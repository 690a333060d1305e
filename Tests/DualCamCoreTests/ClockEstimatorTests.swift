import DualCamTestSupport
import Testing
@testable import DualCamCore

/// The figures, in deterministic simulation: one-way delays 1 ms ± 0.5 ms (or
/// 0.5 ms plus an exponential tail of mean 0.5 ms), 5 % of exchanges held up by up to
/// 50 ms in one direction, the agent's clock 37 ms off and drifting.
@Suite struct ClockEstimatorTests {
    struct Scenario: CustomTestStringConvertible, Sendable {
        var skewPPM: Double
        var jitter: ClockSimulation.DelayModel.Jitter
        var testDescription: String { "\(skewPPM) ppm, \(jitter) jitter" }
    }

    static let scenarios = [
        Scenario(skewPPM: 80, jitter: .uniform), Scenario(skewPPM: -120, jitter: .uniform),
        Scenario(skewPPM: 80, jitter: .exponential), Scenario(skewPPM: -120, jitter: .exponential),
    ]

    @Test(arguments: scenarios)
    func withinFiftyMicrosecondsThreeSecondsIntoTheBurst(scenario: Scenario) {
        var covered = 0, checks = 0
        for seed in 0..<12 as Range<UInt64> {
            var sim = ClockSimulation(seed: seed &* 7919 &+ 1, skewPPM: scenario.skewPPM, jitter: scenario.jitter)
            let start = sim.nextPoll
            var worst: Int64 = 0
            // From 3 s on, through the end of the burst and the first slower polls.
            for step in 0..<120 as Range<Int64> {
                guard let c = sim.check(at: start + 3_000_000_000 + step * 100_000_000) else { continue }
                worst = max(worst, abs(c.errorNanoseconds))
                checks += 1
                if abs(c.errorNanoseconds) <= c.boundNanoseconds { covered += 1 }
            }
            #expect(worst <= 50_000, "seed \(seed): \(worst) ns")
            #expect(sim.estimator.stepsDetected == 0)
        }
        #expect(Double(covered) >= 0.99 * Double(checks))
    }

    @Test(arguments: scenarios)
    func ninetyNinthPercentileOverAnHourAtOneHertz(scenario: Scenario) {
        for seed in 0..<2 as Range<UInt64> {
            // Polled at 1 Hz once locked (the default is 20 Hz): the hour must hold at the
            // slower rate too, and 72 000 exchanges an hour would make this test slow.
            var config = ClockEstimator.Configuration()
            config.lockedIntervalNanoseconds = 1_000_000_000
            var sim = ClockSimulation(seed: seed &+ 1000, skewPPM: scenario.skewPPM, jitter: scenario.jitter, configuration: config)
            var rng = SplitMix64(seed: seed)
            let start = sim.nextPoll
            var errors: [Int64] = []
            var covered = 0
            // One check per second, at a random instant within it: the estimate is used
            // between exchanges, not only right after one.
            for second in 3..<3600 as Range<Int64> {
                let t = start + second * 1_000_000_000 + Int64(rng.unit() * 1e9)
                guard let c = sim.check(at: t) else { continue }
                errors.append(abs(c.errorNanoseconds))
                if abs(c.errorNanoseconds) <= c.boundNanoseconds { covered += 1 }
            }
            errors.sort()
            let p99 = errors[errors.count * 99 / 100]
            #expect(p99 <= 200_000, "seed \(seed): p99 \(p99) ns")
            #expect(Double(covered) >= 0.99 * Double(errors.count), "seed \(seed): bound covered \(covered)/\(errors.count)")
            #expect(sim.estimator.stepsDetected == 0)
            #expect(sim.estimator.estimate?.state == .locked)
            // Locked polling at 1 Hz: about 3600 exchanges plus the burst.
            #expect(sim.exchanges < 3600 + 1500)
        }
    }

    @Test func statesAndPolling() {
        var sim = ClockSimulation(seed: 3)
        #expect(sim.estimator.estimate == nil)
        #expect(sim.estimator.nextPollInterval() == 10_000_000)
        let start = sim.nextPoll
        sim.advance(to: start + 5_000_000)
        #expect(sim.estimator.estimate?.state == .converging)
        sim.advance(to: start + 9_000_000_000)
        #expect(sim.estimator.estimate?.state == .converging)
        #expect(sim.estimator.nextPollInterval() == 10_000_000)
        sim.advance(to: start + 11_000_000_000)
        #expect(sim.estimator.estimate?.state == .locked)
        #expect(sim.estimator.nextPollInterval() == 50_000_000)
        sim.advance(to: start + 60_000_000_000)
        #expect(sim.estimator.nextPollInterval() == 50_000_000)
    }

    @Test func rateAndOffsetAreRecovered() {
        var sim = ClockSimulation(seed: 11, skewPPM: -120)
        let start = sim.nextPoll
        sim.advance(to: start + 120_000_000_000)
        let e = sim.estimator.estimate!
        // shared = local / (1 − 120e-6) near enough, so the rate is about +120 ppm.
        #expect(abs(e.rate - 120.0144e-6) < 0.5e-6)
        let trueOffset = Double(sim.clock.trueTime(fromLocal: e.referenceLocalNanoseconds) - e.referenceLocalNanoseconds)
        #expect(abs(e.offsetNanoseconds - trueOffset) < 50_000)
    }

    @Test(arguments: [Int64(1_000_000_000), -3_000_000_000, 5_000_000, -5_000_000])
    func localClockStepRestartsCleanly(step: Int64) {
        var sim = ClockSimulation(seed: 5)
        let start = sim.nextPoll
        sim.advance(to: start + 30_000_000_000)
        #expect(sim.estimator.estimate?.state == .locked)
        let stepAt = start + 30_000_000_000
        sim.clock.offsetNanoseconds += step
        // The next wake-up was computed on the old clock; the agent re-reads it.
        sim.nextPoll = stepAt
        sim.advance(to: stepAt + 1_000_000_000)
        #expect(sim.estimator.stepsDetected == 1)
        for k in 3..<20 as Range<Int64> {
            let c = sim.check(at: stepAt + k * 500_000_000)!
            #expect(abs(c.errorNanoseconds) <= 50_000, "\(k * 500) ms after the step: \(c.errorNanoseconds) ns")
        }
    }

    @Test(arguments: [Int64(-7_200_000_000_000), 2_000_000])
    func sharedClockStepRestartsCleanly(step: Int64) {
        var sim = ClockSimulation(seed: 6, skewPPM: -120)
        let start = sim.nextPoll
        sim.advance(to: start + 20_000_000_000)
        sim.sharedBase += step  // the coordinator restarted, or its clock was stepped
        sim.advance(to: start + 21_000_000_000)
        #expect(sim.estimator.stepsDetected == 1)
        let c = sim.check(at: start + 24_000_000_000)!
        #expect(abs(c.errorNanoseconds) <= 50_000)
    }

    @Test func loneOutliersDoNotRestart() {
        var estimator = ClockEstimator()
        var local: Int64 = 1_000_000_000
        for i in 0..<200 {
            // Shared runs 2 s ahead; one exchange in 20 has a reply timestamp 30 ms off.
            let glitch: Int64 = i % 20 == 10 ? 30_000_000 : 0
            let s = ClockSample(t1: local, t2: local + 2_000_500_000, t3: local + 2_000_520_000 + glitch, t4: local + 1_020_000)
            estimator.add(s)
            local += 10_000_000
        }
        #expect(estimator.stepsDetected == 0)
        let e = estimator.estimate!
        #expect(abs(e.shared(fromLocal: LocalInstant(nanoseconds: local)) - SharedInstant(nanoseconds: local + 2_000_000_000)) < 20_000)
    }

    @Test func impossibleSamplesAreRejectedAndBackwardsLocalTimeRestarts() {
        var estimator = ClockEstimator()
        #expect(estimator.add(ClockSample(t1: 100, t2: 50, t3: 60, t4: 90)) == nil)
        #expect(estimator.samplesRejected == 1)
        for k in 1...10 as ClosedRange<Int64> {
            let local = k * 10_000_000
            estimator.add(ClockSample(t1: local, t2: local + 5_000_000, t3: local + 5_000_100, t4: local + 2_000))
        }
        estimator.add(ClockSample(t1: 500_000, t2: 5_600_000, t3: 5_600_100, t4: 502_000))
        #expect(estimator.stepsDetected == 1)
        #expect(estimator.estimate?.referenceLocalNanoseconds == 501_000)
        #expect(estimator.estimate?.samplesUsed == 1)
    }

    /// The documented blind spot: an asymmetry `d` shifts the estimate by `d/2`, and the
    /// bound (never below half the gap between the two directions' fastest readings,
    /// which holds the asymmetry) still covers it.
    @Test func pathAsymmetryShiftsByHalfAndStaysInsideTheBound() {
        var sim = ClockSimulation(seed: 9)
        sim.delays.asymmetryNanoseconds = 400_000
        let start = sim.nextPoll
        let c = sim.check(at: start + 60_000_000_000)!
        #expect(abs(c.errorNanoseconds - 200_000) < 40_000)
        #expect(abs(c.errorNanoseconds) <= c.boundNanoseconds)
    }

    @Test func estimateMapsBothWays() {
        let e = ClockEstimate(offsetNanoseconds: -37_123_456.4, rate: 80e-6, referenceLocalNanoseconds: 1_000_000_000_000,
                              errorBoundNanoseconds: 900_000, rateUncertainty: 1e-6, state: .locked, samplesUsed: 4)
        var rng = SplitMix64(seed: 1)
        for _ in 0..<1000 {
            let local = 1_000_000_000_000 + Int64(rng.unit() * 7.2e12) - 3_600_000_000_000
            #expect(abs(e.local(fromShared: e.shared(fromLocal: LocalInstant(nanoseconds: local))).nanoseconds - local) <= 1)
        }
        #expect(e.shared(fromLocal: LocalInstant(nanoseconds: 1_000_000_000_000)) == SharedInstant(nanoseconds: 999_962_876_544))
        #expect(e.shared(fromLocal: LocalInstant(nanoseconds: 1_001_000_000_000)) == SharedInstant(nanoseconds: 1_000_962_956_544))
        #expect(e.errorBound(atLocal: 1_001_000_000_000) == 901_000)
    }

    /// The fit the issue names, for comparison; it meets the hour figure with less margin
    /// and misses the 3 s one on some seeds, which is why it is not the default.
    @Test func leastSquaresAlternativeStillWorksOverAnHour() {
        var config = ClockEstimator.Configuration()
        config.fit = .leastSquares
        config.lockedIntervalNanoseconds = 1_000_000_000
        var sim = ClockSimulation(seed: 1)
        sim.estimator = ClockEstimator(configuration: config)
        let start = sim.nextPoll
        var errors: [Int64] = []
        for second in 30..<1800 as Range<Int64> {
            errors.append(abs(sim.check(at: start + second * 1_000_000_000 + 500_000_000)!.errorNanoseconds))
        }
        errors.sort()
        #expect(errors[errors.count * 99 / 100] <= 200_000)
    }

    /// A cable pulled for 4 s: the pings sent meanwhile wait in TCP and arrive together
    /// when it is back, each with a round trip of seconds but a reply as quick as ever.
    /// Such a ping may be a vertex of the envelope (its return reading is as tight as any);
    /// its round trip says nothing of the path, and must not widen the bound (it once made
    /// it 2 s while the offset stayed within 60 ns).
    @Test func pingsQueuedThroughAPulledCableLeaveTheBoundAlone() {
        var estimator = ClockEstimator()
        let second: Int64 = 1_000_000_000
        var t: Int64 = 0
        while t < 120 * second {
            estimator.add(ClockSample(t1: t, t2: t + 150_000, t3: t + 180_000, t4: t + 330_000))
            t += estimator.nextPollInterval()
        }
        let before = estimator.estimate!.errorBoundNanoseconds
        let healed = t + 4 * second + second / 2
        var ping = t + second / 2
        var k: Int64 = 0
        while ping < healed {
            let arrive = healed + k * 10_000 + 150_000
            let estimate = estimator.add(ClockSample(t1: ping, t2: arrive, t3: arrive + 30_000, t4: arrive + 180_000))!
            #expect(estimate.state == .locked)
            #expect(estimate.errorBoundNanoseconds < before + 50_000, "bound \(estimate.errorBoundNanoseconds) ns after a queued ping")
            #expect(estimate.offsetNanoseconds.magnitude <= Double(estimate.errorBoundNanoseconds))
            ping += second
            k += 1
        }
    }
}

/// Answers that overtake one another (the clock lane's datagrams, §20) against a local
/// clock that really ran backwards: the first is dropped, the second starts over.
@Suite struct ClockOvertakingTests {
    static func exchange(at t: Int64, offset: Int64 = 5_000_000, out: Int64 = 100_000, back: Int64 = 100_000) -> ClockSample {
        ClockSample(t1: t, t2: t + out + offset, t3: t + out + offset + 10_000, t4: t + out + 10_000 + back)
    }

    /// Four seconds of exchanges every 10 ms; the estimator and the instant of the next.
    static func locked() -> (ClockEstimator, Int64) {
        var estimator = ClockEstimator(configuration: .agent)
        var t: Int64 = 1_000_000_000
        for _ in 0..<400 {
            estimator.add(exchange(at: t))
            t += 10_000_000
        }
        return (estimator, t)
    }

    @Test func anOvertakenAnswerIsDroppedAndTheClockStaysLocked() throws {
        var (estimator, t) = Self.locked()
        #expect(estimator.state == .locked)
        let used = try #require(estimator.estimate).samplesUsed
        // Sent 15 ms ago and answered only now, after the exchange sent 5 ms ago.
        estimator.add(Self.exchange(at: t - 15_000_000, back: 15_100_000))
        #expect(estimator.samplesOvertaken == 1)
        #expect(estimator.state == .locked)
        #expect(estimator.stepsDetected == 0)
        #expect(try #require(estimator.estimate).samplesUsed == used)
    }

    @Test func aLocalClockThatRanBackwardsStartsOver() throws {
        var (estimator, t) = Self.locked()
        #expect(estimator.state == .locked)
        // Sent and received a second before the last exchange: the clock went back.
        estimator.add(Self.exchange(at: t - 1_000_000_000, offset: 1_005_000_000))
        #expect(estimator.samplesOvertaken == 0)
        #expect(estimator.stepsDetected == 1)
        #expect(estimator.state != .locked)
    }
}
