import Testing
@testable import DualCamCore

/// The phase lock on simulated sensors: a crystal off by up to ±200 ppm, frame timing and
/// stamps with jitter, frames lost on the way, and the clock estimate stepping under it.
@Suite struct PhaseLockTests {
    /// A free-running sensor whose frame duration can be set frame by frame, seen through
    /// the agent's clock estimate. Deterministic: every draw comes from `seed`.
    struct Sensor {
        let crystalPPM: Double
        var trueTime: Double
        var random: TestRandom
        var lossPerMille: UInt64 = 10
        /// Added to the stamps from `at` on (a step of the clock estimate).
        var step: (at: Double, by: Double)?

        init(crystalPPM: Double, startPhase: Double, seed: UInt64) {
            (self.crystalPPM, trueTime, random) = (crystalPPM, 1_000_000_000 + startPhase, TestRandom(seed: seed))
        }

        /// Captures the next frame with `duration` (±10 µs timing jitter, ±30 µs on the stamp);
        /// nil when the frame is lost on the way.
        mutating func capture(duration: Int64) -> Int64? {
            trueTime += Double(duration) * (1 + crystalPPM * 1e-6) + 10_000 * random.symmetric()
            if random.next() % 1000 < lossPerMille { return nil }
            let stepped = step.map { trueTime >= $0.at ? $0.by : 0 } ?? 0
            return Int64((trueTime + stepped + 30_000 * random.symmetric()).rounded())
        }
    }

    struct Run {
        /// Per delivered frame: seconds since start, phase error, grid slot.
        var frames: [(seconds: Double, error: Int64, slot: Int64)] = []
        var lockedAt: Double?
    }

    static let configuration = PhaseLock.Configuration(rate: .fps30, maxAdjustNanoseconds: 33_333_333 / 50)

    static func run(_ sensor: Sensor, seconds: Double) -> Run {
        var sensor = sensor
        var lock = PhaseLock(configuration)
        var duration = FrameRate.fps30.periodNanoseconds
        let start = sensor.trueTime
        var out = Run()
        while sensor.trueTime - start < seconds * 1e9 {
            guard let stamp = sensor.capture(duration: duration) else { continue }
            let step = lock.frame(stampNanoseconds: stamp)
            duration = step.frameDurationNanoseconds
            let elapsed = (sensor.trueTime - start) / 1e9
            if step.locked && out.lockedAt == nil { out.lockedAt = elapsed }
            out.frames.append((elapsed, step.phaseErrorNanoseconds, GenlockGrid(rate: .fps30).nearestFrameIndex(to: stamp)))
        }
        return out
    }

    @Test func locksFromAnyPhaseAndAnyCrystalWithinThreeSeconds() {
        for (n, ppm) in [-200.0, -80, 0, 120, 200].enumerated() {
            for phase in stride(from: 0.0, to: 33_333_333, by: 4_100_000) {
                let run = Self.run(Sensor(crystalPPM: ppm, startPhase: phase, seed: UInt64(n) * 100 + UInt64(phase / 1e6)), seconds: 20)
                let locked = run.lockedAt ?? .infinity
                #expect(locked <= 3, "\(ppm) ppm, phase \(phase / 1e6) ms: locked at \(locked) s")
                let after = run.frames.filter { $0.seconds > 3 }.map(\.error.magnitude).max() ?? .max
                #expect(after <= 500_000, "\(ppm) ppm, phase \(phase / 1e6) ms: \(after) ns off after 3 s")
            }
        }
    }

    @Test func anHourOfTakesHoldsTheNinetyNinthPercentileUnderAFifthOfAMillisecond() {
        // 60 takes of a minute, each with its own crystal, start phase and a 0.3 ms step of
        // the clock estimate somewhere in it.
        var errors: [UInt64] = []
        var badSlots = 0
        for take in 0..<60 as Range<UInt64> {
            var sensor = Sensor(crystalPPM: Double(Int64(take * 37 % 401) - 200), startPhase: Double(take * 5_555_555 % 33_333_333),
                                seed: take + 7)
            sensor.step = (at: sensor.trueTime + Double(10 + take % 40) * 1e9, by: take % 2 == 0 ? 300_000 : -300_000)
            let run = Self.run(sensor, seconds: 60)
            let settled = run.frames.filter { $0.seconds > 3 }
            errors += settled.map(\.error.magnitude)
            // Every frame on a slot of its own: the next slot, or the one after a lost frame.
            for (a, b) in zip(settled, settled.dropFirst()) where !(1...3).contains(b.slot - a.slot) { badSlots += 1 }
        }
        errors.sort()
        let p99 = errors[(errors.count - 1) * 99 / 100]
        #expect(p99 <= 200_000, "p99 \(p99) ns over \(errors.count) frames")
        #expect(badSlots == 0)
        #expect(errors.count > 100_000)
    }

    @Test func aStepOfTheClockEstimateIsCaughtWithinASecond() {
        var sensor = Sensor(crystalPPM: 150, startPhase: 12_000_000, seed: 3)
        sensor.lossPerMille = 0
        sensor.step = (at: sensor.trueTime + 10e9, by: 400_000)
        let run = Self.run(sensor, seconds: 20)
        let late = run.frames.filter { $0.seconds > 11 }.map(\.error.magnitude).max() ?? .max
        #expect(late <= 200_000, "\(late) ns off a second after the step")
        let worst = run.frames.filter { $0.seconds > 3 }.map(\.error.magnitude).max() ?? .max
        #expect(worst <= 500_000, "the step itself: \(worst) ns")
    }

    @Test func aLargeCorrectionSlewsAtTheSensorsLimit() {
        var lock = PhaseLock(Self.configuration)
        let step = lock.frame(stampNanoseconds: 1_000_000_000 * 30 + 15_000_000)
        #expect(step.frameDurationNanoseconds == FrameRate.fps30.periodNanoseconds - Self.configuration.maxAdjustNanoseconds)
        #expect(lock.rateCorrection == 0 && !step.locked)
    }
}
