import Testing
@testable import DualCamCore

/// The network issue's paths, in deterministic simulation with the jitter switch's own
/// law (`tools/netns/jitterhub.c`: each one-way delay `floor + max(0, N(mean, jitter))`,
/// spikes, losses that TCP resends after 200 ms), the agent's configuration, and its
/// clock 37 ms off and 80 ppm fast. A "take" starts one second after the clock locks and
/// checks the estimate at every frame of 60 s at 30 fps.
@Suite struct ClockNetworkPathTests {
    struct Path: CustomTestStringConvertible, Sendable {
        var name: String
        var meanNanoseconds: Double
        var jitterNanoseconds: Double
        var lossFraction = 0.0
        var spikeFraction = 0.0
        /// Extra outbound floor: a path slower one way than the other.
        var asymmetryNanoseconds = 0.0
        /// Busy hosts: an exponential wait of this mean on every one-way delay.
        var hostWakeNanoseconds = 0.0
        var testDescription: String { name }
    }

    struct Take {
        var errors: [Int64] = []
        var bounds: [Int64] = []
        var lockedAfter: [Int64] = []
        var steps = 0
        var overtaken = 0
        var boundBelowError = 0

        func percentile(_ values: [Int64], _ q: Int) -> Int64 {
            let sorted = values.map(\.magnitude).sorted()
            return Int64(sorted[(sorted.count - 1) * q / 100])
        }

        /// One row of docs/CLOCK.md's simulation table.
        func report(_ path: Path) {
            print("clock simulation | \(path.name) | error median \(percentile(errors, 50) / 1000) µs, p99 \(percentile(errors, 99) / 1000) µs, max \(percentile(errors, 100) / 1000) µs | bound median \(percentile(bounds, 50) / 1000) µs, p99 \(percentile(bounds, 99) / 1000) µs | locked after \((lockedAfter.max() ?? 0) / 1_000_000) ms at most | steps \(steps)")
        }
    }

    static let bridge = Path(name: "bridge", meanNanoseconds: 5_000, jitterNanoseconds: 10_000)
    static let lan = Path(name: "1 ms ± 0.5 ms", meanNanoseconds: 1_000_000, jitterNanoseconds: 500_000)
    static let lossy = Path(name: "1 ms ± 0.5 ms, 5 % loss, 2 % 20 ms spikes", meanNanoseconds: 1_000_000,
                            jitterNanoseconds: 500_000, lossFraction: 0.05, spikeFraction: 0.02)
    static let wifi = Path(name: "5 ms ± 3 ms", meanNanoseconds: 5_000_000, jitterNanoseconds: 3_000_000)
    /// The real switch's soft floor (see `hostWakeMeanNanoseconds`).
    static let busyLAN = Path(name: "1 ms ± 0.5 ms, busy hosts", meanNanoseconds: 1_000_000, jitterNanoseconds: 500_000,
                              hostWakeNanoseconds: 80_000)
    static let busyLossy = Path(name: "1 ms ± 0.5 ms, 5 % loss, 2 % 20 ms spikes, busy hosts", meanNanoseconds: 1_000_000,
                                jitterNanoseconds: 500_000, lossFraction: 0.05, spikeFraction: 0.02, hostWakeNanoseconds: 80_000)
    static let asymmetric = Path(name: "1 ms ± 0.5 ms, 0.3 ms slower out", meanNanoseconds: 1_000_000,
                                 jitterNanoseconds: 500_000, asymmetryNanoseconds: 300_000)

    static func simulate(_ path: Path, seeds: Range<UInt64>, skewPPM: Double = 80, datagrams: Bool = false) -> Take {
        var take = Take()
        for seed in seeds {
            var sim = ClockSimulation(seed: seed &* 7919 &+ 3, skewPPM: skewPPM, jitter: .normal, configuration: .agent)
            sim.datagrams = datagrams
            sim.delays.outlierFraction = 0
            sim.delays.meanNanoseconds = path.meanNanoseconds
            sim.delays.jitterNanoseconds = path.jitterNanoseconds
            sim.delays.lossFraction = path.lossFraction
            sim.delays.spikeFraction = path.spikeFraction
            sim.delays.spikeNanoseconds = 20_000_000
            sim.delays.asymmetryNanoseconds = path.asymmetryNanoseconds
            sim.delays.hostWakeMeanNanoseconds = path.hostWakeNanoseconds
            let start = sim.nextPoll
            var t = start
            while sim.estimator.state != .locked && t < start + 60_000_000_000 {
                t += 10_000_000
                sim.advance(to: t)
            }
            take.lockedAfter.append(t - start)
            t += 1_000_000_000
            for frame in 0..<1800 as Range<Int64> {
                guard let c = sim.check(at: t + frame * 33_333_333) else { continue }
                take.errors.append(c.errorNanoseconds)
                take.bounds.append(c.boundNanoseconds)
                if c.boundNanoseconds < abs(c.errorNanoseconds) { take.boundBelowError += 1 }
            }
            take.steps += sim.estimator.stepsDetected
            take.overtaken += sim.estimator.samplesOvertaken
        }
        return take
    }

    @Test func bridgeMedianUnderTwentyMicroseconds() {
        let take = Self.simulate(Self.bridge, seeds: 0..<4)
        #expect(take.percentile(take.errors, 50) <= 20_000)
        #expect(take.boundBelowError == 0)
    }

    @Test func jitteryLANMedianFiftyP99TwoHundred() {
        let take = Self.simulate(Self.lan, seeds: 0..<6)
        #expect(take.percentile(take.errors, 50) <= 50_000, "median \(take.percentile(take.errors, 50)) ns")
        #expect(take.percentile(take.errors, 99) <= 200_000, "p99 \(take.percentile(take.errors, 99)) ns")
        #expect(take.steps == 0, "jitter taken for a clock step \(take.steps) times")
        #expect(take.lockedAfter.allSatisfy { $0 <= 6_000_000_000 }, "locked after \(take.lockedAfter) ns")
    }

    /// Two cameras on such paths: every frame's pair error is the difference of their
    /// errors at the same instant.
    @Test func lossAndSpikesKeepEveryPairUnderHalfAMillisecond() {
        for pair in 0..<3 as Range<UInt64> {
            let a = Self.simulate(Self.lossy, seeds: (pair * 2)..<(pair * 2 + 1))
            let b = Self.simulate(Self.lossy, seeds: (pair * 2 + 1)..<(pair * 2 + 2), skewPPM: -40)
            let worst = zip(a.errors, b.errors).map { ($0 - $1).magnitude }.max() ?? .max
            #expect(worst <= 500_000, "pair \(pair): \(worst) ns apart")
            #expect(a.steps + b.steps == 0)
        }
    }

    @Test func slowWiFiSyncsUnderTheDefaultThresholdAndStaysTight() {
        let take = Self.simulate(Self.wifi, seeds: 0..<6)
        let threshold = TakeMachine.Settings.defaultClockThreshold(for: .fps30)
        // The start waits for the bound: it must get under the threshold once locked.
        #expect(take.percentile(take.bounds, 99) < threshold, "bound p99 \(take.percentile(take.bounds, 99)) ns")
        #expect(take.percentile(take.errors, 99) <= 500_000, "p99 \(take.percentile(take.errors, 99)) ns")
        #expect(take.lockedAfter.allSatisfy { $0 <= 10_000_000_000 }, "locked after \(take.lockedAfter) ns")
    }

    /// The bound is hard: on every path, including one slower one way (whose error no
    /// exchange can see), no frame's error exceeds it. On the asymmetric path, where the
    /// error is what the bound must allow for, the bound stays within 2× of it.
    @Test(arguments: [bridge, lan, lossy, wifi, asymmetric])
    func boundNeverBelowTheTrueError(path: Path) {
        let take = Self.simulate(path, seeds: 0..<4)
        take.report(path)
        #expect(take.boundBelowError == 0, "\(take.boundBelowError) of \(take.errors.count) frames outside the bound")
        if path.asymmetryNanoseconds > 0 {
            let errorP99 = take.percentile(take.errors, 99), boundP50 = take.percentile(take.bounds, 50)
            #expect(abs(take.percentile(take.errors, 50) - Int64(path.asymmetryNanoseconds / 2)) <= 30_000)
            #expect(boundP50 <= 2 * errorP99, "bound median \(boundP50) ns against error p99 \(errorP99) ns")
        }
    }

    /// The clock lane (§20) on the same paths: datagrams that overtake one another, losses
    /// that are gone. Before the estimator told an overtaken answer from a clock that ran
    /// backwards, every overtaking restarted it, and on 5 ms ± 3 ms it never locked.
    @Test(arguments: [lan, lossy, wifi, busyLAN, busyLossy])
    func theClockLaneMeetsTheSameFigures(path: Path) {
        let take = Self.simulate(path, seeds: 0..<4, datagrams: true)
        take.report(path)
        #expect(take.steps == 0, "\(take.steps) restarts or steps")
        #expect(take.boundBelowError == 0, "\(take.boundBelowError) of \(take.errors.count) frames outside the bound")
        #expect(take.lockedAfter.allSatisfy { $0 <= 10_000_000_000 }, "locked after \(take.lockedAfter) ns")
        #expect(take.percentile(take.errors, 50) <= 50_000, "median \(take.percentile(take.errors, 50)) ns")
        #expect(take.percentile(take.errors, 99) <= 200_000, "p99 \(take.percentile(take.errors, 99)) ns")
        if path.meanNanoseconds >= 5_000_000 { #expect(take.overtaken > 0, "the path should reorder some answers") }
    }
}
