import Testing
@testable import DualCamCore

/// Our grid fed to a Raspberry Pi camera module's sync client, on the model of the Pi's
/// code (`PiCameraModel`): the packet as the Pi lays it out, and the loop over an hour of
/// simulated takes.
@Suite struct PiSyncTests {
    @Test func thePacketIsTheCStructAsAPiLaysItOut() {
        let packet = PiSyncPacket(frameDurationMicroseconds: 33_333, frameWallClockMicroseconds: 0x0102_0304_0506_0708,
                                  readyWallClockMicroseconds: 1_790_000_000_123_456)
        let bytes = packet.bytes
        #expect(bytes.count == 40)
        #expect(Array(bytes[0..<4]) == [0x35, 0x82, 0x00, 0x00])  // 33333, little-endian
        #expect(Array(bytes[4..<16]) == [UInt8](repeating: 0, count: 12))  // padding, systemFrameTimestamp
        #expect(Array(bytes[16..<24]) == [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        #expect(Array(bytes[24..<32]) == [UInt8](repeating: 0, count: 8))  // systemReadyTime
        #expect(PiSyncPacket(bytes: bytes) == packet)
        #expect(PiSyncPacket(bytes: Array(bytes.prefix(39))) == nil)
        var zero = bytes
        zero[0] = 0; zero[1] = 0
        #expect(PiSyncPacket(bytes: zero) == nil, "a zero period would make a client divide by zero")
    }

    @Test func theInstantSentIsAGridFrameTheClientsLatestFrameFollows() {
        let feeder = PiSyncFeeder(rate: .fps30)
        let period = FrameRate.fps30.periodNanoseconds
        for now in [Int64(10_000_000_000), 10_000_000_001, 10_020_000_000, 987_654_321_987] {
            let packet = feeder.packet(nowShared: now, wallMinusSharedNanoseconds: 1_000_000_000_000_000_000)
            let shared = Int64(packet.frameWallClockMicroseconds) * 1_000 - 1_000_000_000_000_000_000
            #expect(now - shared >= (feeder.periodsBack - 1) * period && now - shared < (feeder.periodsBack + 1) * period)
            #expect(abs(StartAlignment(rate: .fps30).phase(ofStampNanoseconds: shared)) < 1_000, "on the grid")
            #expect(packet.frameDurationMicroseconds == 33_333)
            #expect(packet.readyWallClockMicroseconds == packet.frameWallClockMicroseconds)
        }
    }

    struct Case: CustomStringConvertible {
        var crystalPPM: Double
        var sensor: String
        var ntpSlewPPM: Double
        var description: String { "\(sensor) \(crystalPPM) ppm, NTP slewing \(ntpSlewPPM) ppm" }
    }

    struct Outcome {
        var phases: [Double] = []
        var worst = 0.0
        var slotsSkippedOrRepeated = 0
    }

    /// `seconds` of a camera steered by our packets, sent every feeder interval on the
    /// agent's clock, 0.2 ms on the way; the agent's clock estimate steps by 300 µs half
    /// way through. Phases are read against the grid as the agent's estimate places it
    /// (what its stamps would say), from `settle` seconds on.
    static func run(_ c: Case, seconds: Double, settle: Double = 3, seed: UInt64) -> Outcome {
        let rate = FrameRate.fps30
        var sensor = PiCameraModel.Sensor(crystalPPM: c.crystalPPM)
        switch c.sensor {
        case "imx219 on a Pi 5": sensor.vblankDelay = 2
        case "imx708 on a Pi 4": (sensor.vblankDelay, sensor.statisticsAfterISP, sensor.lineNanoseconds) = (3, true, 29_400)
        default: sensor.vblankDelay = 3
        }
        var clocks = PiCameraModel.Clocks()
        clocks.ntpSlewPPM = c.ntpSlewPPM
        var random = TestRandom(seed: seed)
        let start = 1e9 + 33e6 * (random.symmetric() + 1) / 2
        var camera = PiCameraModel(sensor: sensor, clocks: clocks, rate: rate, startTrue: start, seed: seed)
        let feeder = PiSyncFeeder(rate: rate)
        let stepAt = seconds / 2 * 1e9
        func estimateError(_ t: Double) -> Double { t >= stepAt ? 300_000 : 0 }
        var nextSend = 0.2e9
        var inFlight: [(arrival: Double, packet: PiSyncPacket)] = []
        var outcome = Outcome()
        var lastSlot: Int64?
        let grid = StartAlignment(rate: rate)
        while camera.nextStart < seconds * 1e9 {
            // The agent's sends up to this frame's processing, each read off its clocks.
            let frameStart = camera.frame { processed in
                while nextSend <= processed {
                    let shared = nextSend + estimateError(nextSend)
                    let wall = clocks.wall(monotonic: clocks.monotonic(true: nextSend))
                    inFlight.append((nextSend + 200_000, feeder.packet(nowShared: Int64(shared.rounded()),
                                                                      wallMinusSharedNanoseconds: Int64((wall - shared).rounded()))))
                    nextSend += Double(feeder.intervalNanoseconds) * (1 + random.symmetric() * 0.05)
                }
                let arrived = inFlight.filter { $0.arrival <= processed }
                inFlight.removeAll { $0.arrival <= processed }
                return arrived.last?.packet
            }
            let stamp = Int64((frameStart + estimateError(frameStart)).rounded())
            guard frameStart >= settle * 1e9 else { continue }
            let phase = Double(grid.phase(ofStampNanoseconds: stamp))
            outcome.phases.append(abs(phase))
            outcome.worst = max(outcome.worst, abs(phase))
            let slot = GenlockGrid(rate: rate).nearestFrameIndex(to: stamp)
            if let lastSlot, slot != lastSlot + 1 { outcome.slotsSkippedOrRepeated += 1 }
            lastSlot = slot
        }
        return outcome
    }

    /// 30 two-minute takes, an hour in all: crystals ±200 ppm, three sensor pipelines,
    /// NTP slewing the Pi's wall clock or not, and a 300 µs step of the clock estimate in each.
    @Test func anHourOfTakesStaysOnTheGrid() {
        var cases: [Case] = []
        for crystal in [-200.0, -80, 0, 120, 200] {
            for sensor in ["imx219 on a Pi 5", "imx708 on a Pi 5", "imx708 on a Pi 4"] {
                for slew in [0.0, 50] { cases.append(Case(crystalPPM: crystal, sensor: sensor, ntpSlewPPM: slew)) }
            }
        }
        var all: [Double] = []
        var bySensor: [String: [Double]] = [:]
        for (index, c) in cases.enumerated() {
            let outcome = Self.run(c, seconds: 120, seed: UInt64(index + 1))
            #expect(outcome.slotsSkippedOrRepeated == 0, "\(c): \(outcome.slotsSkippedOrRepeated) frames off their grid slot")
            #expect(outcome.worst <= 450_000, "\(c): worst \(outcome.worst / 1e6) ms")
            all += outcome.phases
            bySensor[c.sensor, default: []] += outcome.phases
        }
        // The client corrects one frame per packet and never learns the camera's rate:
        // between packets the frames walk off by their whole-line shortfall and crystal
        // (13-30 µs a frame), and the correction lands 4-6 frames after it was measured.
        // So the phase is a saw of a few hundred µs, not the PLL's tens (docs/RASPBERRY-PI.md).
        let p99 = Self.percentile(all, 99)
        #expect(p99 <= 350_000, "p99 \(p99 / 1e6) ms over an hour")
        #expect(Self.percentile(all, 50) <= 150_000, "median \(Self.percentile(all, 50) / 1e6) ms over an hour")
        for (sensor, phases) in bySensor.sorted(by: { $0.key < $1.key }) {
            print("Pi sync model, \(sensor), 20 min: median \(Int(Self.percentile(phases, 50) / 1e3)) µs, "
                  + "p99 \(Int(Self.percentile(phases, 99) / 1e3)) µs, worst \(Int(Self.percentile(phases, 100) / 1e3)) µs")
        }
    }

    static func percentile(_ values: [Double], _ p: Int) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count * p / 100, sorted.count - 1)]
    }

    /// Without our packets the same camera runs free: the model is not locked by itself.
    @Test func unsteeredTheModelDriftsOffTheGrid() {
        let rate = FrameRate.fps30
        var camera = PiCameraModel(sensor: .init(crystalPPM: 120), clocks: .init(), rate: rate, startTrue: 1e9, seed: 9)
        let grid = StartAlignment(rate: rate)
        var phases: [Int64] = []
        while camera.nextStart < 20e9 {
            phases.append(grid.phase(ofStampNanoseconds: Int64(camera.frame { _ in nil }.rounded())))
        }
        // Whole lines make the frames 13 µs short, the crystal 4 µs more: the phase walks.
        #expect(abs(phases.last! - phases.first!) > 5_000_000)
    }
}
