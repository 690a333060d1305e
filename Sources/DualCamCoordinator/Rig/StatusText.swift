import DualCamCore
import Foundation

/// A rig snapshot as text, for text screens (the terminal's status line, logs). Pure
/// formatting: where and how the text is shown is the screen's business.
public enum StatusText {
    public static let stopHint = "Enter stops"

    /// ["00:42", "Host 30.0 fps, 0 dropped, mic [#####...] -21 dB, 51 °C, 12.1 GB free, lag 1.8 s, clock ±40 µs", "Guest …", "Enter stops"]
    public static func parts(_ snapshot: RigSnapshot) -> [String] {
        guard let take = snapshot.take else { return [] }
        let elapsed = Int(take.elapsedSeconds)
        var parts = [elapsed >= 3600 ? String(format: "%d:%02d:%02d", elapsed / 3600, elapsed / 60 % 60, elapsed % 60)
                                     : String(format: "%02d:%02d", elapsed / 60, elapsed % 60)]
        for a in snapshot.agents {
            var fields: [String] = []
            switch a.connection {
            case .lost(let since): fields.append("LOST \(Int(since)) s, reconnecting")
            case .connecting: fields.append("reconnecting")
            case .connected:
                if a.complete { fields.append("done") }
                // The whole reason is in the pre-flight and the warnings; a status line
                // has room for the state only.
                if a.sourceProblem != nil { fields.append("NOT READY (camera)") }
            }
            if a.givenUp { fields.append("given up") }
            if let t = a.telemetry, a.connection == .connected { fields += telemetryFields(t) }
            if let lag = a.uploadLagSeconds, !a.complete { fields.append(String(format: "lag %.1f s", lag)) }
            if let clock = a.clock { fields.append("clock ±\(clock.errorBoundMicroseconds) µs") }
            parts.append("\(a.cameraName.isEmpty ? a.name : a.cameraName) " + fields.joined(separator: ", "))
        }
        if let phase = take.framePhase, let text = phaseText(phase, names: cameraNames(take, snapshot)) {
            parts.append(text)
        }
        if let d = take.director {
            // Who it hears, by the take's camera names (take.cameras are rig indices).
            let names = cameraNames(take, snapshot)
            let heard = d.speaking.indices.filter { d.speaking[$0] && $0 < names.count }.map { names[$0] }
            parts.append((d.following ? "director: " : "director (you have it, d hands back): ")
                + (heard.isEmpty ? "nobody speaking" : heard.joined(separator: " + ") + " speaking"))
        }
        if !take.liveOut.isEmpty { parts.append(liveText(take.liveOut)) }
        if take.liveOnly { parts.append("NOT RECORDING (live only; `start` keeps it)") }
        if take.phase == .recording { parts.append(stopHint) }
        return parts
    }

    /// The take's cameras by name, in the composite's stream order.
    static func cameraNames(_ take: TakeStatus, _ snapshot: RigSnapshot) -> [String] {
        take.cameras.map { $0 < snapshot.agents.count ? snapshot.agents[$0].cameraName : "?" }
    }

    /// The worst pair's phase in the combined picture: "phase Host–Guest 16.0 ms (max 16.2)",
    /// said loudly past a quarter frame. Camera timing, beside the clock's ± figures.
    /// "LIVE 2/2, 4480 kbit/s" while every destination is on air; otherwise each one
    /// that is not, with its state ("rtmp://host/app/****: retrying, 2 reconnects").
    public static func liveText(_ streams: [LiveStreamStatus]) -> String {
        let live = streams.filter { $0.state == .live }
        var text = "LIVE \(live.count)/\(streams.count)" + (live.isEmpty ? "" : ", \(live.map(\.kbps).reduce(0, +)) kbit/s")
        let dropped = streams.map(\.droppedFrames).reduce(0, +)
        if dropped > 0 { text += ", \(dropped) frames not sent (slow uplink)" }
        for s in streams where s.state != .live {
            text += "; \(s.destination): \(s.state.rawValue)" + (s.reconnects > 0 ? ", \(s.reconnects) reconnects" : "")
        }
        return text
    }

    public static func phaseText(_ phase: FramePhase, names: [String]) -> String? {
        guard let worst = phase.pairs.max(by: { $0.apart.p95Nanoseconds < $1.apart.p95Nanoseconds }) else { return nil }
        let pair = worst.streams.map { $0 < names.count ? names[$0] : "?" }.joined(separator: "–")
        let text = String(format: "phase %@ %.1f ms (max %.1f)", pair, Double(worst.apart.p95Nanoseconds) / 1e6,
                          Double(worst.apart.maxNanoseconds) / 1e6)
        return phase.isOutOfStep ? text + " OVER 1/4 FRAME" : text
    }

    /// An agent's telemetry in words. Its numbers come from the wire and may be absurd:
    /// such a figure is shown as unknown, never converted to an integer nor printed with
    /// 300 digits. An unknown temperature (no sensor) is left out.
    public static func telemetryFields(_ t: AgentTelemetry) -> [String] {
        let fps = (0...100_000).contains(t.captureFPS) ? String(format: "%.1f fps", t.captureFPS) : "? fps"
        var fields = [fps, "\(t.framesDropped) dropped"]
        if let sound = t.sound { fields.append(LevelMeter.text(peakDBFS: sound.peakDBFS, rmsDBFS: sound.rmsDBFS)) }
        if let c = t.temperatureC {
            fields.append((-273...1000).contains(c) ? String(format: "%.0f °C", c) : "? °C")
        }
        if t.freeDiskBytes > 0 { fields.append(String(format: "%.1f GB free", Double(t.freeDiskBytes) / 1e9)) }
        if !t.preset.isEmpty { fields.append(t.preset + (t.encoderShortfall != nil ? " (CANNOT KEEP UP)" : "")) }
        return fields
    }

    /// One line when it fits in `columns - 1` (the last column would wrap on some
    /// terminals); else the time and hint, then a line per camera, each cut to fit.
    public static func layout(_ parts: [String], columns: Int) -> [String] {
        let width = max(columns - 1, 20)
        let single = parts.joined(separator: " | ")
        if single.count <= width { return [single] }
        guard parts.count > 1 else { return [cut(single, width)] }
        let cameras = parts.dropFirst().filter { $0 != stopHint }
        let head = parts[0] + (parts.contains(stopHint) ? " | " + stopHint : "")
        return [cut(head, width)] + cameras.map { cut("  " + $0, width) }
    }

    private static func cut(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }
}

/// A microphone's level as a text meter: eight cells over −48…0 dBFS by peak, the RMS in
/// figures, and CLIP when the peak reaches full scale.
public enum LevelMeter {
    public static func text(peakDBFS: Double, rmsDBFS: Double) -> String {
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
