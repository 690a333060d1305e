import DualCamCore
import DualCamProtocol
import DualCamMedia
import Foundation

/// Once a second: the pipeline's rates and losses, and the machine's health (CPU
/// temperature, Raspberry Pi throttling, free disk, clock error bound).
final class TelemetryReporter: @unchecked Sendable {
    // Invariant: `previous` and `previousInstant` are used by one caller at a time (the
    // recording's telemetry task).
    private let stats: PipelineStats
    private let clock: AgentClock
    private let spoolPath: String
    private var previous = PipelineStats.Counters()
    private var previousInstant: Int64
    /// Serving a coordinator, whose acks tell which segments may still be needed here.
    private let countsAcknowledgements: Bool

    init(stats: PipelineStats, clock: AgentClock, spoolPath: String, countsAcknowledgements: Bool) {
        self.stats = stats
        self.clock = clock
        self.spoolPath = spoolPath
        self.countsAcknowledgements = countsAcknowledgements
        self.previousInstant = clock.localNow()
    }

    struct Sample {
        var message: Dualcam_V1_Telemetry
        var line: String
    }

    func sample() -> Sample {
        let now = clock.localNow()
        let counters = stats.snapshot
        let since = max(previousInstant, counters.capturingSinceLocal ?? previousInstant)
        let seconds = max(Double(now - since) / 1e9, 0.001)
        var t = Dualcam_V1_Telemetry()
        t.localTimeNs = now
        t.captureFps = Double(counters.captured - previous.captured) / seconds
        t.encodedFps = Double(counters.encoded - previous.encoded) / seconds
        t.framesDropped = UInt64(counters.sourceDrops + counters.backlogDrops + counters.beforeKeyframeDrops)
        t.encodeLatencyMs = Double(counters.encodeLatencyNanoseconds) / 1e6
        t.queueDepth = UInt32(counters.queueDepth)
        if countsAcknowledgements { t.segmentsPending = UInt32(max(counters.segments - counters.acknowledged.count, 0)) }
        t.cpuTemperatureC = SystemHealth.cpuTemperature() ?? .nan
        t.throttleFlags = SystemHealth.throttleFlags() ?? 0
        t.freeDiskBytes = UInt64(max(FreeSpace.bytes(at: spoolPath) ?? 0, 0))
        // 0 until the clock has an estimate: the coordinator refuses a negative bound as a
        // bad message and closes the connection (a studio watching the preview as an agent
        // connected could see its first report go out before the first clock exchange).
        t.clockErrorBoundNs = clock.estimate?.errorBound(atLocal: now) ?? 0
        if let levels = stats.readAudioLevels() {
            t.audio = true
            t.audioPeakDbfs = levels.peakDBFS
            t.audioRmsDbfs = levels.rmsDBFS
        }
        previous = counters
        previousInstant = now
        var line = String(format: "capture %.1f fps, encoded %.1f fps, dropped %d (source %d, encoder backlog %d), encode latency %.1f ms, queue %d",
                          t.captureFps, t.encodedFps, Int(t.framesDropped), counters.sourceDrops, counters.backlogDrops,
                          t.encodeLatencyMs, Int(t.queueDepth))
        if counters.beforeKeyframeDrops > 0 { line += ", \(counters.beforeKeyframeDrops) before the first keyframe" }
        line += ", \(counters.segments) segments"
        if !counters.preset.isEmpty { line += ", preset \(counters.preset)" }
        if let shortfall = counters.encoderShortfall { line += "; \(shortfall)" }
        if countsAcknowledgements { line += " (\(t.segmentsPending) not yet held by the coordinator)" }
        if !t.cpuTemperatureC.isNaN { line += String(format: ", CPU %.1f °C", t.cpuTemperatureC) }
        if t.throttleFlags != 0 { line += ", throttled 0x" + String(t.throttleFlags, radix: 16) + " (\(SystemHealth.describeThrottle(t.throttleFlags)))" }
        if t.audio { line += String(format: ", sound peak %.0f dBFS RMS %.0f dBFS", t.audioPeakDbfs, t.audioRmsDbfs) }
        line += ", disk free \(DiskSpace.megabytes(Int64(t.freeDiskBytes)))"
        if Int64(t.freeDiskBytes) < DiskSpace.warnBytes { line += " (LOW)" }
        if t.clockErrorBoundNs > 0 { line += String(format: ", clock ±%.0f µs", Double(t.clockErrorBoundNs) / 1000) }
        return Sample(message: t, line: line)
    }
}

/// What the machine can tell about its own health; nil where a file is not there (not a
/// Pi, no thermal zone in a VM).
enum SystemHealth {
    static func cpuTemperature() -> Double? {
        // thermal_zone0 is the SoC on a Pi and usually the CPU package on a PC.
        guard let text = try? String(contentsOfFile: "/sys/class/thermal/thermal_zone0/temp", encoding: .utf8),
              let milli = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return milli / 1000
    }

    /// The firmware's get_throttled bits, as `vcgencmd get_throttled` shows them; the Pi
    /// kernel exposes them through sysfs (no need for the vcgencmd tool).
    static func throttleFlags() -> UInt32? {
        let paths = ["/sys/devices/platform/soc/soc:firmware/get_throttled",
                     "/sys/devices/platform/soc/soc:firmware/raspberrypi-hwmon/get_throttled"]
        for path in paths {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
               let value = UInt32(text.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) {
                return value
            }
        }
        return nil
    }

    static func describeThrottle(_ flags: UInt32) -> String {
        let names: [(UInt32, String)] = [(0x1, "under-voltage now"), (0x2, "frequency capped now"), (0x4, "throttled now"),
                                         (0x8, "soft temperature limit now"), (0x10000, "under-voltage has occurred"),
                                         (0x20000, "frequency capping has occurred"), (0x40000, "throttling has occurred"),
                                         (0x80000, "soft temperature limit has occurred")]
        return names.filter { flags & $0.0 != 0 }.map(\.1).joined(separator: ", ")
    }
}
