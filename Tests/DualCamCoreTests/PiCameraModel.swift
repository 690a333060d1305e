@testable import DualCamCore

/// A Raspberry Pi camera module under `rpicam-vid --sync client`, modelled on the code that
/// runs on the Pi (raspberrypi/libcamera v0.7.1+rpt20260429, unchanged in what matters since
/// v0.4.0+rpt20250127, the first bookworm build with sync):
/// - the sensor's frame length is whole lines (`floor(duration / line)`, ipa_base.cpp
///   `applyAGC`/`getBlanking`), timed by its own crystal;
/// - the frame-start interrupt stamps CLOCK_MONOTONIC (rp1_cfe `cfe_sof_isr_handler`), with
///   interrupt jitter;
/// - `ClockRecovery` maps that stamp onto CLOCK_REALTIME by a running least-squares fit of
///   (boot, wall) samples, one per frame (clock_recovery.cpp: weights capped at 1/100,
///   fit used after 10 samples, jitter clamp 2 µs, reset on 50 µs of step; ns units);
/// - the client (sync.cpp `Sync::process`) drains its socket on each processed frame, the
///   last packet winning; `k = (int)((delta + D/2) / D)` truncates towards zero; the
///   correction under 50 µs is dropped; it shortens that one frame's duration;
/// - the new frame length reaches the sensor through DelayedControls: frame
///   `N + 1 + vblankDelay` after the processed frame N takes it, so the first start to
///   move is `N + 2 + vblankDelay` (vblankDelay 2 for
///   imx219/ov5647/imx296, 3 for imx477/imx708; one more on a Pi 4, whose statistics
///   come after the ISP).
/// What it leaves out, and why that is safe here: the dropped-frame counting (it changes
/// only the ready frame), AGC's exposure clipping (exposure does not move frame starts).
/// Not checked against a Pi: no Pi runs here (docs/RASPBERRY-PI.md says so).
struct PiCameraModel {
    struct Sensor {
        var crystalPPM: Double
        var lineNanoseconds: Double = 18_900
        var vblankDelay: Int = 3
        var statisticsAfterISP = false
        /// The shortest frame the mode allows (its highest rate: 50 fps).
        var minFrameNanoseconds: Double = 20_000_000
        /// The frame-start interrupt's jitter on the stamp (±).
        var stampJitterNanoseconds: Double = 20_000
    }

    /// The Pi's own clocks against true time (= the shared clock here).
    struct Clocks {
        /// CLOCK_MONOTONIC's rate error and start.
        var systemPPM: Double = 35
        var monotonicAtZero: Double = 5_000_000_000_000
        /// CLOCK_REALTIME against CLOCK_MONOTONIC: an offset, slewed by NTP at this rate.
        var wallMinusMonotonic: Double = 1_790_000_000_000_000_000
        var ntpSlewPPM: Double = 0

        func monotonic(true t: Double) -> Double { monotonicAtZero + t * (1 + systemPPM * 1e-6) }
        func wall(monotonic m: Double) -> Double { m + wallMinusMonotonic + ntpSlewPPM * 1e-6 * (m - monotonicAtZero) }
        func trueTime(monotonic m: Double) -> Double { (m - monotonicAtZero) / (1 + systemPPM * 1e-6) }
    }

    /// libcamera's ClockRecovery, in its nanosecond version.
    struct ClockRecovery {
        var inputBase = 0.0, outputBase = 0.0
        var xAve = 0.0, yAve = 0.0, x2Ave = 0.0, xyAve = 0.0
        var count = 0.0
        var slope = 0.0, offset = 0.0
        var lastInput = 0.0, lastOutput = 0.0
        var error = 0.0
        var started = false

        func output(_ input: Double) -> Double {
            let x = input - inputBase
            return outputBase + x + slope * x + offset
        }

        mutating func add(boot: Double, wall rawWall: Double) {
            if !started {
                (inputBase, outputBase, started) = (boot, rawWall, true)
                (xAve, yAve, x2Ave, xyAve, count, slope, offset, error) = (0, 0, 0, 0, 0, 0, 0, 0)
            }
            var wall = rawWall
            if lastOutput != 0 {
                error = 0.95 * error + ((wall - lastOutput) - (output(boot) - output(lastInput)))
                if abs(error) > 50_000 {
                    started = false
                    lastOutput = 0
                    add(boot: boot, wall: rawWall)
                    return
                }
            }
            let predicted = output(boot)
            wall = min(max(wall, predicted - 2_000), predicted + 2_000)
            (lastInput, lastOutput) = (boot, wall)
            let x = boot - inputBase
            let y = (wall - outputBase) - x
            let c = count
            xAve = (c * xAve + x) / (c + 1)
            yAve = (c * yAve + y) / (c + 1)
            x2Ave = (c * x2Ave + x * x) / (c + 1)
            xyAve = (c * xyAve + x * y) / (c + 1)
            if count + 1 < 100 { count += 1 }
            if count > 10 {
                let denominator = x2Ave - xAve * xAve
                if denominator != 0 { slope = (xyAve - xAve * yAve) / denominator }
                offset = yAve - slope * xAve
            }
        }
    }

    /// The sync client's state.
    struct Client {
        var packet: PiSyncPacket?
        var minAdjustmentMicroseconds: Int64 = 50

        /// `Sync::process` for a frame at wall `t` µs with a packet drained (nil: none
        /// came): the frame-duration offset in µs (positive shortens).
        func correction(frameWallMicroseconds t: UInt64, packet: PiSyncPacket) -> Int64 {
            let d = Double(packet.frameDurationMicroseconds)
            let ts = packet.frameWallClockMicroseconds
            let delta = Int64(bitPattern: t &- ts)
            let k = Int(((Double(delta) + d / 2) / d).rounded(.towardZero))
            let near = Int64(bitPattern: t &- UInt64(bitPattern: Int64(k) * Int64(packet.frameDurationMicroseconds)))
            var correction = near - Int64(bitPattern: ts)
            if abs(correction) < minAdjustmentMicroseconds { correction = 0 }
            return correction
        }
    }

    var sensor: Sensor
    var clocks: Clocks
    var recovery = ClockRecovery()
    var client = Client()
    var random: TestRandom
    /// The nominal frame duration rpicam-vid asks for (FrameDurationLimits, whole µs).
    let nominalMicroseconds: Int64
    /// Frame lengths (true ns) decided for frames not yet started, by frame number.
    private var pendingLengths: [Int: Double] = [:]
    private(set) var frameNumber = 0
    /// True start of the next frame.
    private(set) var nextStart: Double

    init(sensor: Sensor, clocks: Clocks, rate: FrameRate, startTrue: Double, seed: UInt64) {
        self.sensor = sensor
        self.clocks = clocks
        self.random = TestRandom(seed: seed)
        nominalMicroseconds = 1_000_000 * rate.denominator / rate.numerator
        nextStart = startTrue
    }

    /// The true length of a frame given `durationMicroseconds`: whole lines, on the sensor's crystal.
    func trueLength(durationMicroseconds: Int64) -> Double {
        let lines = (Double(durationMicroseconds) * 1_000 / sensor.lineNanoseconds).rounded(.down)
        return max(lines * sensor.lineNanoseconds, sensor.minFrameNanoseconds) / (1 + sensor.crystalPPM * 1e-6)
    }

    /// Starts the next frame; `packets` are those that reached the client's socket before
    /// this frame is processed (after its readout). Returns the frame's true start.
    mutating func frame(packetsBeforeProcessing packets: (Double) -> PiSyncPacket?) -> Double {
        let start = nextStart
        let number = frameNumber
        let length = pendingLengths.removeValue(forKey: number) ?? trueLength(durationMicroseconds: nominalMicroseconds)
        nextStart = start + length
        frameNumber += 1
        // The stamp, and the ClockRecovery sample taken when the buffer is dequeued.
        let stamp = clocks.monotonic(true: start) + sensor.stampJitterNanoseconds * random.symmetric()
        let processed = start + length + 3_000_000
        let dequeuedMonotonic = clocks.monotonic(true: processed)
        recovery.add(boot: dequeuedMonotonic, wall: clocks.wall(monotonic: dequeuedMonotonic) + 500 * random.symmetric())
        let wallMicroseconds = UInt64(recovery.output(stamp) / 1_000)
        if let packet = packets(processed) {
            let correction = client.correction(frameWallMicroseconds: wallMicroseconds, packet: packet)
            if correction != 0 {
                let target = number + 1 + sensor.vblankDelay + (sensor.statisticsAfterISP ? 1 : 0)
                pendingLengths[target] = trueLength(durationMicroseconds: nominalMicroseconds - correction)
            }
        }
        return start
    }
}
