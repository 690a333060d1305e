@testable import DualCamCore

/// A deterministic stand-in for an agent and a coordinator exchanging clock pings.
///
/// True time is the coordinator's clock (the shared clock); the agent reads it through a
/// `SimulatedClockError`. Each exchange draws its two one-way delays from `DelayModel`
/// using a seeded generator, so a failing seed can be replayed exactly.
struct ClockSimulation {
    struct DelayModel {
        enum Jitter { case uniform, exponential }
        var jitter: Jitter = .uniform
        /// Mean one-way delay.
        var meanNanoseconds: Double = 1_000_000
        /// Uniform: ± this around the mean. Exponential: the minimum is mean − this and
        /// the exponential tail has mean `this`.
        var jitterNanoseconds: Double = 500_000
        /// Share of exchanges where one direction is held up (queueing, Wi-Fi retries).
        var outlierFraction: Double = 0.05
        var outlierMaxNanoseconds: Double = 50_000_000
        /// Coordinator turnaround between receive and reply.
        var turnaroundNanoseconds: Double = 30_000

        func draw(using rng: inout SplitMix64) -> (out: Int64, back: Int64) {
            func oneWay() -> Double {
                switch jitter {
                case .uniform:
                    return meanNanoseconds + (2 * rng.unit() - 1) * jitterNanoseconds
                case .exponential:
                    let u = max(rng.unit(), 1e-300)
                    return meanNanoseconds - jitterNanoseconds - jitterNanoseconds * naturalLog(u)
                }
            }
            var out = oneWay(), back = oneWay()
            if rng.unit() < outlierFraction {
                let extra = rng.unit() * outlierMaxNanoseconds
                if rng.next() & 1 == 0 { out += extra } else { back += extra }
            }
            return (Int64(out), Int64(back))
        }
    }

    struct Check {
        var trueNanoseconds: Int64
        var errorNanoseconds: Int64
        var boundNanoseconds: Int64
        var state: ClockSyncState
    }

    var clock: SimulatedClockError
    var delays = DelayModel()
    var rng: SplitMix64
    var estimator = ClockEstimator()
    /// True instant the next exchange starts.
    var nextPoll: Int64 = 0
    var exchanges = 0

    init(seed: UInt64, offsetNanoseconds: Int64 = 37_000_000, skewPPM: Double = 80, jitter: DelayModel.Jitter = .uniform) {
        rng = SplitMix64(seed: seed)
        // The agent's process started a while before the session; the skew counts from then.
        clock = SimulatedClockError(offsetNanoseconds: offsetNanoseconds, skewPPM: skewPPM,
                                    processStartNanoseconds: -Int64(rng.unit() * 100e9))
        delays.jitter = jitter
        nextPoll = Int64(rng.unit() * 1e9) + 1_000_000_000
    }

    /// Runs every exchange that completes before `t` (true time).
    mutating func advance(to t: Int64) {
        while true {
            let start = nextPoll
            let (out, back) = delays.draw(using: &rng)
            let arrive = start + out
            let reply = arrive + Int64(delays.turnaroundNanoseconds * (0.5 + rng.unit()))
            let done = reply + back
            guard done <= t else { return }
            let sample = ClockSample(t1: clock.local(fromTrue: start), t2: arrive, t3: reply, t4: clock.local(fromTrue: done))
            estimator.add(sample)
            exchanges += 1
            // The agent waits on its own clock, so the interval stretches with its skew.
            let wake = clock.local(fromTrue: done) + estimator.nextPollInterval()
            nextPoll = clock.trueTime(fromLocal: wake)
        }
    }

    /// The estimator's error, mapping the agent's reading at true instant `t`.
    mutating func check(at t: Int64) -> Check? {
        advance(to: t)
        guard let estimate = estimator.estimate else { return nil }
        let local = clock.local(fromTrue: t)
        return Check(trueNanoseconds: t, errorNanoseconds: estimate.shared(fromLocal: local) - t,
                     boundNanoseconds: estimate.errorBound(atLocal: local), state: estimate.state)
    }
}

/// Natural logarithm for the exponential delay model, without Foundation: range reduction
/// to [1, 2) then the atanh series, ample for a test's random draws.
func naturalLog(_ x: Double) -> Double {
    precondition(x > 0)
    let e = x.exponent
    let m = x.significand  // [1, 2)
    let z = (m - 1) / (m + 1), z2 = z * z
    var term = z, sum = 0.0
    var k = 1.0
    while term.magnitude > 1e-18 {
        sum += term / k
        term *= z2
        k += 2
    }
    return 2 * sum + Double(e) * 0.693_147_180_559_945_3
}
