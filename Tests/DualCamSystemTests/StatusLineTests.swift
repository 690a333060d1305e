@testable import DualCamCoordinator
import DualCamProtocol
import Testing

/// A status line that wraps on the terminal cannot be rewritten in place: every second
/// it would scroll the screen by a line. It is laid out to the terminal's width.
struct StatusLineTests {
    let parts = ["00:42", "Host 30.0 fps, 0 dropped, mic [######..] -24 dB, 51 °C, 12.1 GB free, lag 1.8 s, clock ±40 µs",
                 "Guest 30.0 fps, 0 dropped, mic [#####...] -27 dB, 48 °C, 9.8 GB free, lag 1.9 s, clock ±52 µs",
                 StatusText.stopHint]

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
