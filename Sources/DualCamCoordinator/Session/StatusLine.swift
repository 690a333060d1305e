import DualCamNet
import DualCamProtocol
import Foundation

/// The live status: on a terminal, rewritten in place with notes (warnings, events)
/// printed above it; elsewhere (a log, a pipe) a line every ten seconds. On a terminal
/// too narrow for one line it takes a line per camera, each cut to the width: a line
/// that wraps cannot be rewritten in place, and would scroll the screen every second.
final class StatusLine {
    private let progress: @Sendable (String) -> Void
    private let inPlace = isatty(STDERR_FILENO) == 1
    /// Terminal lines now showing the status (the cursor is at the end of the last).
    private var shownLines = 0
    private var lastLogged = Date.distantPast

    init(progress: @escaping @Sendable (String) -> Void) {
        self.progress = progress
    }

    /// `parts`: the elapsed time, then one part per camera, then the hint.
    func show(_ parts: [String]) {
        if inPlace {
            let lines = Self.layout(parts, columns: Self.terminalColumns())
            FileHandle.standardError.write(Data((clearSequence() + lines.joined(separator: "\n")).utf8))
            shownLines = lines.count
        } else if Date().timeIntervalSince(lastLogged) >= 10 {
            lastLogged = Date()
            progress(parts.joined(separator: " | "))
        }
    }

    func note(_ text: String) {
        clear()
        progress(text)
    }

    func end() { clear() }

    private func clear() {
        guard shownLines > 0 else { return }
        FileHandle.standardError.write(Data(clearSequence().utf8))
    }

    /// Back to the first status line, erasing each on the way.
    private func clearSequence() -> String {
        guard shownLines > 0 else { return "" }
        defer { shownLines = 0 }
        return "\r\u{1B}[K" + String(repeating: "\u{1B}[1A\u{1B}[K", count: shownLines - 1)
    }

    /// One line when it fits in `columns - 1` (the last column would wrap on some
    /// terminals); else the time and hint, then a line per camera, each cut to fit.
    static func layout(_ parts: [String], columns: Int) -> [String] {
        let width = max(columns - 1, 20)
        let single = parts.joined(separator: " | ")
        if single.count <= width { return [single] }
        guard parts.count > 1 else { return [cut(single, width)] }
        let cameras = parts.dropFirst().filter { $0 != SessionCollector.stopHint }
        let head = parts[0] + (parts.contains(SessionCollector.stopHint) ? " | " + SessionCollector.stopHint : "")
        return [cut(head, width)] + cameras.map { cut("  " + $0, width) }
    }

    private static func cut(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }

    private static func terminalColumns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}

extension SessionCollector {
    static let stopHint = "Enter stops"

    /// ["00:42", "Host 30.0 fps, 0 dropped, mic [#####...] -21 dB, lag 1.8 s, clock ±40 µs, 51 °C, 12.1 GB free", "Guest …", "Enter stops"]
    func line() -> [String] {
        let now = MonotonicTime.now()
        let elapsed = max(0, (min(now, stopShared ?? now) - t0) / 1_000_000_000)
        var parts = [String(format: "%02d:%02d", elapsed / 60, elapsed % 60)]
        for a in agents {
            var fields: [String] = []
            switch a.phase {
            case .lost(let since): fields.append("LOST \((now - since) / 1_000_000_000) s, reconnecting")
            case .gone: fields.append("given up")
            case .handshaking: fields.append("reconnecting")
            case .attached:
                if a.complete { fields.append("done") }
            }
            if let t = a.telemetry, a.phase == .attached, a.finished == nil { fields += Self.telemetryFields(t) }
            let live = min(now, stopShared ?? now) - t0
            if a.finished == nil || !a.complete {
                fields.append(String(format: "lag %.1f s", Double(max(0, live - a.receivedUpToNanoseconds)) / 1e9))
            }
            if let clock = a.clock { fields.append("clock ±\(clock.errorBoundNs / 1000) µs") }
            parts.append("\(a.cameraName.isEmpty ? a.name : a.cameraName) " + fields.joined(separator: ", "))
        }
        if stopShared == nil { parts.append(Self.stopHint) }
        return parts
    }
}

extension SessionCollector {
    /// An agent's telemetry in words. Its doubles come from the wire and may be NaN,
    /// infinite or absurd: such a figure is shown as unknown, never converted to an
    /// integer nor printed with 300 digits. A NaN temperature is the agent's way of
    /// saying it has no sensor, so it is left out.
    static func telemetryFields(_ t: Dualcam_V1_Telemetry) -> [String] {
        let fps = (0...100_000).contains(t.captureFps) ? String(format: "%.1f fps", t.captureFps) : "? fps"
        var fields = [fps, "\(t.framesDropped) dropped"]
        if t.audio { fields.append(LevelMeter.text(peakDBFS: t.audioPeakDbfs, rmsDBFS: t.audioRmsDbfs)) }
        if (-273...1000).contains(t.cpuTemperatureC) {
            fields.append(String(format: "%.0f °C", t.cpuTemperatureC))
        } else if !t.cpuTemperatureC.isNaN {
            fields.append("? °C")
        }
        if t.freeDiskBytes > 0 { fields.append(String(format: "%.1f GB free", Double(t.freeDiskBytes) / 1e9)) }
        return fields
    }
}

/// A microphone's level as a text meter for the status line: eight cells over −48…0 dBFS
/// by peak, the RMS in figures, and CLIP when the peak reaches full scale.
enum LevelMeter {
    static func text(peakDBFS: Double, rmsDBFS: Double) -> String {
        // −∞ is silence; NaN and +∞ are no level at all.
        guard !peakDBFS.isNaN, !rmsDBFS.isNaN, peakDBFS != .infinity, rmsDBFS != .infinity else { return "mic level unknown" }
        let cells = 8
        // Clamped while still a double: converting −∞ (or 1e300) to Int traps.
        let lit = Int(min(max(((peakDBFS + 48) / 48 * Double(cells)).rounded(), 0), Double(cells)))
        let bar = String(repeating: "#", count: lit) + String(repeating: ".", count: cells - lit)
        let clip = peakDBFS >= -0.1 ? " CLIP" : ""
        let rms = rmsDBFS <= -96 ? "silent" : rmsDBFS > 0 ? "? dB" : String(format: "%.0f dB", rmsDBFS)
        return "mic [\(bar)] \(rms)\(clip)"
    }
}
