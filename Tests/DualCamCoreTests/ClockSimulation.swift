import DualCamTestSupport
@testable import DualCamCore

/// A deterministic stand-in for an agent and a coordinator exchanging clock pings.
///
/// True time is the coordinator's clock (the shared clock); the agent reads it through a
/// `SimulatedClockError`. Each exchange draws its two one-way delays from `DelayModel`
/// using a seeded generator, so a failing seed can be replayed exactly.
struct ClockSimulation {
    struct DelayModel {
        /// `normal`: the project's jitter switch (`tools/netns/jitterhub.c`), each one-way
        /// delay `floor + max(0, N(mean, jitter))`, plus spikes and TCP-retransmitted losses.
        enum Jitter { case uniform, exponential, normal }
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
        /// Extra outbound delay on every exchange: a constant path asymmetry.
        var asymmetryNanoseconds: Double = 0
        /// Normal model: the path's own floor (veth, kernel, TLS) under the switch's delay.
        var floorNanoseconds: Double = 25_000
        /// Normal model: share of packets held up by `spikeNanoseconds` more.
        var spikeFraction: Double = 0
        var spikeNanoseconds: Double = 0
        /// Normal model: share of packets lost; TCP sends them again after its minimum
        /// retransmission timeout (200 ms on Linux), so a loss is a late packet; a datagram
        /// (`ClockSimulation.datagrams`) is simply gone.
        var lossFraction: Double = 0
        /// Normal model: mean of an exponential wait added to every one-way delay, the
        /// receiving host's softirq running late on a busy machine. The jitter switch's real
        /// logs (`ClockReplayTests`) show it: 2.3 % of one-way delays under 120-180 µs where
        /// the law alone puts them under 45 µs.
        var hostWakeMeanNanoseconds: Double = 0

        func draw(using rng: inout SplitMix64) -> (out: Int64, back: Int64) {
            let d = drawDatagrams(using: &rng, resendLosses: true)
            return (d.out, d.back)
        }

        func drawDatagrams(using rng: inout SplitMix64, resendLosses: Bool) -> (out: Int64, back: Int64, lost: Bool) {
            var lost = false
            func oneWay() -> Double {
                switch jitter {
                case .uniform:
                    return meanNanoseconds + (2 * rng.unit() - 1) * jitterNanoseconds
                case .exponential:
                    let u = max(rng.unit(), 1e-300)
                    return meanNanoseconds - jitterNanoseconds - jitterNanoseconds * naturalLog(u)
                case .normal:
                    // The floor itself wavers by up to 20 µs (interrupts, scheduling, TLS).
                    var d = floorNanoseconds + 20_000 * rng.unit()
                        + max(0, meanNanoseconds + jitterNanoseconds * rng.standardNormal())
                    if hostWakeMeanNanoseconds > 0 {
                        d -= hostWakeMeanNanoseconds * naturalLog(max(rng.unit(), 1e-300))
                    }
                    if rng.unit() < spikeFraction { d += spikeNanoseconds }
                    if rng.unit() < lossFraction {
                        if resendLosses { d += 200_000_000 + meanNanoseconds } else { lost = true }
                    }
                    return d
                }
            }
            var out = oneWay() + asymmetryNanoseconds, back = oneWay()
            if rng.unit() < outlierFraction {
                let extra = rng.unit() * outlierMaxNanoseconds
                if rng.next() & 1 == 0 { out += extra } else { back += extra }
            }
            return (Int64(out), Int64(back), lost)
        }
    }

    struct Check {
        var trueNanoseconds: Int64
        var errorNanoseconds: Int64
        var boundNanoseconds: Int64
        var state: ClockSyncState
    }

    var clock: SimulatedClockError
    /// The coordinator's clock reads true time plus this (changed to simulate its restart).
    var sharedBase: Int64 = 0
    var delays = DelayModel()
    var rng: SplitMix64
    var estimator = ClockEstimator()
    /// True instant the next exchange starts.
    var nextPoll: Int64 = 0
    var exchanges = 0
    /// Every exchange fed to the estimator, in order, as the agent's clock log has them.
    var log: [ClockSample] = []

    init(seed: UInt64, offsetNanoseconds: Int64 = 37_000_000, skewPPM: Double = 80, jitter: DelayModel.Jitter = .uniform,
         configuration: ClockEstimator.Configuration = .init()) {
        estimator = ClockEstimator(configuration: configuration)
        rng = SplitMix64(seed: seed)
        // The agent's process started a while before the session; the skew counts from then.
        clock = SimulatedClockError(offsetNanoseconds: offsetNanoseconds, skewPPM: skewPPM,
                                    processStartNanoseconds: -Int64(rng.unit() * 100e9))
        delays.jitter = jitter
        nextPoll = Int64(rng.unit() * 1e9) + 1_000_000_000
    }

    /// The exchange in flight: true send, receive, reply and completion instants.
    var inFlight: (start: Int64, arrive: Int64, reply: Int64, done: Int64)?
    /// The clock lane (§20) rather than the TLS connection: pings leave on the agent's
    /// timer whether or not earlier ones were answered, a lost datagram is gone rather
    /// than resent, and answers arrive in the order the network delivers them, so a slow
    /// one is overtaken by the next.
    var datagrams = false
    var inFlightDatagrams: [(start: Int64, arrive: Int64, reply: Int64, done: Int64)] = []

    /// Runs every exchange that completes before `t` (true time). Each exchange's delays
    /// are drawn once, when it starts, so checks do not change what the network does.
    mutating func advance(to t: Int64) {
        if datagrams { return advanceDatagrams(to: t) }
        while true {
            if inFlight == nil {
                let start = nextPoll
                let (out, back) = delays.draw(using: &rng)
                let arrive = start + out
                let reply = arrive + Int64(delays.turnaroundNanoseconds * (0.5 + rng.unit()))
                inFlight = (start, arrive, reply, reply + back)
            }
            guard let x = inFlight, x.done <= t else { return }
            inFlight = nil
            let sample = ClockSample(t1: clock.local(fromTrue: x.start), t2: x.arrive + sharedBase,
                                     t3: x.reply + sharedBase, t4: clock.local(fromTrue: x.done))
            estimator.add(sample)
            log.append(sample)
            exchanges += 1
            // The agent waits on its own clock, so the interval stretches with its skew.
            let wake = clock.local(fromTrue: x.done) + estimator.nextPollInterval()
            nextPoll = clock.trueTime(fromLocal: wake)
        }
    }

    private mutating func advanceDatagrams(to t: Int64) {
        while true {
            let next = inFlightDatagrams.indices.min { inFlightDatagrams[$0].done < inFlightDatagrams[$1].done }
            if nextPoll <= t, next.map({ nextPoll <= inFlightDatagrams[$0].done }) ?? true {
                let start = nextPoll
                let (out, back, lost) = delays.drawDatagrams(using: &rng, resendLosses: false)
                let arrive = start + out
                let reply = arrive + Int64(delays.turnaroundNanoseconds * (0.5 + rng.unit()))
                if !lost { inFlightDatagrams.append((start, arrive, reply, reply + back)) }
                // The agent's timer runs on its own clock, answered or not.
                nextPoll = clock.trueTime(fromLocal: clock.local(fromTrue: start) + estimator.nextPollInterval())
            } else if let i = next, inFlightDatagrams[i].done <= t {
                let x = inFlightDatagrams.remove(at: i)
                let sample = ClockSample(t1: clock.local(fromTrue: x.start), t2: x.arrive + sharedBase,
                                         t3: x.reply + sharedBase, t4: clock.local(fromTrue: x.done))
                estimator.add(sample)
                log.append(sample)
                exchanges += 1
            } else {
                return
            }
        }
    }

    /// The estimator's error, mapping the agent's reading at true instant `t`.
    mutating func check(at t: Int64) -> Check? {
        advance(to: t)
        guard let estimate = estimator.estimate else { return nil }
        let local = clock.local(fromTrue: t)
        return Check(trueNanoseconds: t, errorNanoseconds: estimate.shared(fromLocal: LocalInstant(nanoseconds: local)).nanoseconds - (t + sharedBase),
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
