import DualCamNet
import Foundation

/// The live status: on a terminal, one line rewritten in place with notes (warnings,
/// events) printed above it; elsewhere (a log, a pipe) a line every ten seconds.
final class StatusLine {
    private let progress: @Sendable (String) -> Void
    private let inPlace = isatty(STDERR_FILENO) == 1
    private var shown = false
    private var lastLogged = Date.distantPast

    init(progress: @escaping @Sendable (String) -> Void) {
        self.progress = progress
    }

    func show(_ line: String) {
        if inPlace {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
            shown = true
        } else if Date().timeIntervalSince(lastLogged) >= 10 {
            lastLogged = Date()
            progress(line)
        }
    }

    func note(_ text: String) {
        clear()
        progress(text)
    }

    func end() { clear() }

    private func clear() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }
}

extension SessionCollector {
    /// "00:42 | Host 30.0 fps, 0 dropped, mic [#####...] -21 dB, lag 1.8 s, clock ±40 µs, 51 °C, 12.1 GB free | Guest …"
    func line() -> String {
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
            if let t = a.telemetry, a.phase == .attached, a.finished == nil {
                fields.append(String(format: "%.1f fps", t.captureFps))
                fields.append("\(t.framesDropped) dropped")
                if t.audio { fields.append(LevelMeter.text(peakDBFS: t.audioPeakDbfs, rmsDBFS: t.audioRmsDbfs)) }
                if !t.cpuTemperatureC.isNaN { fields.append(String(format: "%.0f °C", t.cpuTemperatureC)) }
                if t.freeDiskBytes > 0 { fields.append(String(format: "%.1f GB free", Double(t.freeDiskBytes) / 1e9)) }
            }
            let live = min(now, stopShared ?? now) - t0
            if a.finished == nil || !a.complete {
                fields.append(String(format: "lag %.1f s", Double(max(0, live - a.receivedUpToNanoseconds)) / 1e9))
            }
            if let clock = a.clock { fields.append("clock ±\(clock.errorBoundNs / 1000) µs") }
            parts.append("\(a.cameraName.isEmpty ? a.name : a.cameraName) " + fields.joined(separator: ", "))
        }
        if stopShared == nil { parts.append("Enter stops") }
        return parts.joined(separator: " | ")
    }
}

/// A microphone's level as a text meter for the status line: eight cells over −48…0 dBFS
/// by peak, the RMS in figures, and CLIP when the peak reaches full scale.
enum LevelMeter {
    static func text(peakDBFS: Double, rmsDBFS: Double) -> String {
        let cells = 8
        let lit = max(0, min(cells, Int(((peakDBFS + 48) / 48 * Double(cells)).rounded())))
        let bar = String(repeating: "#", count: lit) + String(repeating: ".", count: cells - lit)
        let clip = peakDBFS >= -0.1 ? " CLIP" : ""
        let rms = rmsDBFS <= -96 ? "silent" : String(format: "%.0f dB", rmsDBFS)
        return "mic [\(bar)] \(rms)\(clip)"
    }
}
