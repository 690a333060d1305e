@testable import DualCamCoordinator
@testable import DualCamCore
import DualCamProtocol
import Testing

/// A status line that wraps on the terminal cannot be rewritten in place: every second
/// it would scroll the screen by a line. It is laid out to the terminal's width.
struct StatusLineTests {
    let parts = ["00:42", "Host 30.0 fps, 0 dropped, mic [######..] -24 dB, 51 °C, 12.1 GB free, lag 1.8 s, clock ±40 µs",
                 "Guest 30.0 fps, 0 dropped, mic [#####...] -27 dB, 48 °C, 9.8 GB free, lag 1.9 s, clock ±52 µs",
                 StatusText.stopHint]

    /// Camera phase beside the clock's figures: the worst pair by its 95th percentile,
    /// loudly past a quarter frame.
    @Test func thePhaseOfTheWorstPairIsSaid() {
        func pair(_ streams: [Int], p95: Int64) -> FramePhase.Pair {
            .init(streams: streams, apart: .init(count: 90, medianNanoseconds: p95 - 100_000, p95Nanoseconds: p95,
                                                 maxNanoseconds: p95 + 200_000), driftNanosecondsPerMinute: 0)
        }
        let wide = FramePhase(periodNanoseconds: 33_333_333, cameras: [], pairs: [pair([0, 1], p95: 2_000_000), pair([0, 2], p95: 16_000_000)])
        #expect(StatusText.phaseText(wide, names: ["Host", "Guest", "Camera3"]) == "phase Host–Camera3 16.0 ms (max 16.2) OVER 1/4 FRAME")
        let close = FramePhase(periodNanoseconds: 33_333_333, cameras: [], pairs: [pair([0, 1], p95: 300_000)])
        #expect(StatusText.phaseText(close, names: ["Host", "Guest"]) == "phase Host–Guest 0.3 ms (max 0.5)")
        #expect(StatusText.phaseText(FramePhase(periodNanoseconds: 33_333_333, cameras: [], pairs: []), names: []) == nil)
    }

    @Test func aWideTerminalGetsOneLine() {
        let lines = StatusText.layout(parts, columns: 300)
        #expect(lines == [parts.joined(separator: " | ")])
    }

    @Test func aNarrowTerminalGetsALinePerCameraNoneWrapping() {
        let lines = StatusText.layout(parts, columns: 80)
        #expect(lines.count == 3)
        #expect(lines[0] == "00:42 | Enter stops")
        #expect(lines[1].hasPrefix("  Host 30.0 fps") && lines[2].hasPrefix("  Guest 30.0 fps"))
        #expect(lines.allSatisfy { $0.count <= 79 }, "\(lines.map(\.count))")
        #expect(lines[1].hasSuffix("…"))
    }

    @Test func nothingIsLostWhereItFits() {
        let lines = StatusText.layout(parts, columns: 120)
        #expect(lines[1] == "  " + parts[1] && lines[2] == "  " + parts[2])
    }
}

/// Telemetry comes from the wire: a NaN or infinite level, temperature or rate must be
/// shown as unknown, not trap the coordinator's status line mid-recording.
struct StatusLineTelemetryTests {
    func telemetry(peak: Double, rms: Double, temperature: Double, fps: Double) -> Dualcam_V1_Telemetry {
        var t = Dualcam_V1_Telemetry()
        t.audio = true
        t.audioPeakDbfs = peak
        t.audioRmsDbfs = rms
        t.cpuTemperatureC = temperature
        t.captureFps = fps
        return t
    }

    @Test func nonFiniteFiguresAreShownAsUnknown() {
        for bad in [Double.nan, .infinity, 1e300] {
            let fields = StatusText.telemetryFields(Rig.telemetry(telemetry(peak: bad, rms: bad, temperature: bad, fps: bad)))
            #expect(fields.contains("? fps"), "\(fields)")
            #expect(fields.contains { $0.hasPrefix("mic") && ($0.contains("unknown") || $0.contains("?")) }, "\(fields)")
            #expect(fields.allSatisfy { $0.count < 40 }, "\(fields)")
            if !bad.isNaN { #expect(fields.contains("? °C"), "\(fields)") }
        }
        // Silence is −∞ dBFS: an empty meter, not a trap.
        #expect(LevelMeter.text(peakDBFS: -.infinity, rmsDBFS: -.infinity) == "mic [........] silent")
        let normal = StatusText.telemetryFields(Rig.telemetry(telemetry(peak: -24, rms: -30, temperature: 51, fps: 30)))
        #expect(normal == ["30.0 fps", "0 dropped", "mic [####....] -30 dB", "51 °C"])
    }
}
