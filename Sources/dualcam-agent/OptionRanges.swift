import ArgumentParser
import DualCamCore

/// Every number `dualcam-agent` takes, on its command line or in its config file, with
/// the values it accepts; each command's validate() checks its own before anything
/// slow happens (opening a camera, binding a port). The bounds are generous for use and
/// keep every later conversion to nanoseconds or bytes inside Int64.
enum AgentRanges {
    static let port = OptionRange("--port", 0...65_535, "(0: any free port)")
    static let firstPairingWindow = OptionRange("--first-pairing-window", 0...86_400, "seconds (0: never)")
    static let telemetryLogSeconds = OptionRange("--telemetry-log-seconds", 1...86_400, "seconds")
    static let pairSeconds = OptionRange("--seconds", 1...3600, "seconds")

    static let inputLatencyMs = OptionRange("--input-latency-ms", 0.0...10_000, "ms")
    static let segmentSeconds = OptionRange("--segment-seconds", 0.5...60, "seconds")
    static let diskReserveMb = OptionRange("--disk-reserve-mb", 0.0...1_000_000, "MB")
    static let crf = OptionRange("--crf", 0...51)
    static let presetHeadroom = OptionRange("--preset-headroom", 1.0...10, "times real time")
    static let bitrate = OptionRange("--bitrate", 100_000...500_000_000, "bit/s (e.g. 6M)")
    static let gain = OptionRange("--gain", -12.0...12, "dB")
    static let audioBitrate = OptionRange("--audio-bitrate", 16_000...512_000, "bit/s")
    static let simulateAudioRatePpm = OptionRange("--simulate-audio-rate-ppm", -10_000.0...10_000, "ppm")
    static let simulateClockOffsetMs = OptionRange("--simulate-clock-offset-ms", -86_400_000.0...86_400_000, "ms")
    static let simulateClockSkewPpm = OptionRange("--simulate-clock-skew-ppm", -10_000.0...10_000, "ppm")
    static let freeRunPhaseMs = OptionRange("--free-run-phase-ms", 0.0...1_000, "ms")
    static let freeRunCrystalPpm = OptionRange("--free-run-crystal-ppm", -1_000.0...1_000, "ppm")
    static let simulateEstimateStepUs = OptionRange("--simulate-estimate-step-us", -10_000.0...10_000, "µs")
    static let simulateEstimateStepAtS = OptionRange("--simulate-estimate-step-at-s", 0.0...86_400, "seconds")

    static let recordDuration = OptionRange("--duration", 0.0...1_000_000_000, "seconds", excludingLowerBound: true)
    static let telemetrySeconds = OptionRange("--telemetry-seconds", 0.1...86_400, "seconds")
}

extension OptionRange {
    /// Refuses `value` as a usage error (the message and the usage line, exit 64).
    func validate(_ value: Value?) throws {
        if let value, let problem = problem(value) { throw ValidationError(problem) }
    }
}
