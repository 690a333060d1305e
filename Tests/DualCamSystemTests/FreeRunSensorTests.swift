import DualCamCore
import Testing
@testable import DualCamAgent

/// The synthetic source's sensor model (issue 34, item 3): without the lock it runs at its
/// crystal's rate from its own phase, as an unsteered camera does; with it, the durations
/// the lock returns (within the sensor's limit) bring its frames onto the shared grid.
@Suite struct FreeRunSensorTests {
    static let period = FrameRate.fps30.periodNanoseconds

    /// Frames of a sensor whose local clock is the shared one, its phase against the grid each frame.
    static func phases(crystalPPM: Double, lock: Bool, frames: Int, firstPhase: Int64) -> [Int64] {
        let first = 1_000 * period + firstPhase
        var sensor = FreeRunSensor(rate: .fps30, firstLocal: first, crystalPPM: crystalPPM,
                                   lock: lock ? FreeRunSensor.lock(rate: .fps30) : nil)
        var phases: [Int64] = []
        var previous: Int64?
        for _ in 0..<frames {
            let local = sensor.nextLocal
            if let previous { #expect(abs(local - previous - period) <= FreeRunSensor.maxAdjust(rate: .fps30) + 10_000) }
            previous = local
            let k = (local + period / 2) / period
            phases.append(local - k * period)
            sensor.captured(local: local, shared: local)
        }
        return phases
    }

    @Test func unsteeredItDriftsAtItsCrystalsRate() {
        let phases = Self.phases(crystalPPM: 120, lock: false, frames: 1801, firstPhase: 5_000_000)
        // A minute at +120 ppm: 7.2 ms earlier.
        #expect(abs(phases.last! - (5_000_000 - 7_200_000)) < 2_000, "\(phases.last!)")
    }

    @Test func steeredItLocksOntoTheGridFromTheWorstPhase() {
        for (ppm, phase) in [(120.0, Self.period / 2 - 1_000), (-80.0, -Self.period / 2 + 1_000), (200, 8_650_000)] {
            var sensor = FreeRunSensor(rate: .fps30, firstLocal: 1_000 * Self.period + phase, crystalPPM: ppm, lock: FreeRunSensor.lock(rate: .fps30))
            let phases = Self.phases(crystalPPM: ppm, lock: true, frames: 30 * 20, firstPhase: phase)
            let settled = phases.dropFirst(3 * 30)
            #expect(settled.map(\.magnitude).max()! <= 500_000, "\(ppm) ppm from \(phase) ns: worst \(settled.map(\.magnitude).max()!) ns after 3 s")
            for _ in 0..<200 { sensor.captured(local: sensor.nextLocal, shared: sensor.nextLocal) }
            #expect(sensor.secondsToLock.map { $0 < 3 } == true, "\(String(describing: sensor.secondsToLock))")
        }
    }
}
