import ArgumentParser
import DualCamCore
import DualCamMedia

/// Every number `dualcam-coordinator` takes, with the values it accepts; each command's
/// validate() checks its own before anything slow happens (finishing an unfinished
/// session, looking for agents, starting demo agents). The bounds are generous for use
/// and keep every later conversion to nanoseconds inside Int64.
enum CoordinatorRanges {
    static let duration = OptionRange("--duration", 0.0...1_000_000, "seconds", excludingLowerBound: true)
    static let discoverSeconds = OptionRange("--discover-seconds", 0.0...600, "seconds", excludingLowerBound: true)
    static let countdown = OptionRange("--countdown", 0...3600, "seconds (0: none)")
    static let reconnectGrace = OptionRange("--reconnect-grace", 0.0...3600, "seconds")
    static let crf = OptionRange("--crf", 0...51)
    static let clockThresholdMicroseconds = OptionRange("--clock-threshold-us", 1...1_000_000, "µs")
    static let clockSyncTimeout = OptionRange("--clock-sync-timeout", 0.0...3600, "seconds", excludingLowerBound: true)
    static let filterIntensity = OptionRange("--filter-intensity", 0...100, "%")

    static let demoCameras = OptionRange("--cameras", 1...8)
    static let guestClockOffsetMs = OptionRange("--guest-clock-offset-ms", -86_400_000.0...86_400_000, "ms")
    static let guestClockSkewPpm = OptionRange("--guest-clock-skew-ppm", -10_000.0...10_000, "ppm")
    static let guestAudioRatePpm = OptionRange("--guest-audio-rate-ppm", -10_000.0...10_000, "ppm")

    static let browseSeconds = OptionRange("--browse-seconds", 0.0...600, "seconds", excludingLowerBound: true)
    static let discoverFor = OptionRange("--seconds", 0.0...3600, "seconds", excludingLowerBound: true)
}

extension OptionRange {
    /// Refuses `value` as a usage error (the message and the usage line, exit 64).
    func validate(_ value: Value?) throws {
        if let value, let problem = problem(value) { throw ValidationError(problem) }
    }
}

/// The checks by option group, taking values rather than commands, so that any command
/// (start, serve, demo) whose options include a group calls the same one.
extension CoordinatorRanges {
    /// What a take records with: start's (and any command's sharing them) quality,
    /// countdown and grace options.
    static func checkTake(countdown: Int, reconnectGrace: Double, crf: Int?, size: String?, bitrate: String?) throws {
        try Self.countdown.validate(countdown)
        try Self.reconnectGrace.validate(reconnectGrace)
        try Self.crf.validate(crf)
        if let size { _ = try CommandSupport.parseSize(size) }
        if let bitrate, (VideoEncoderSettings.parseBitrate(bitrate) ?? 0) <= 0 {
            throw ValidationError("--bitrate must look like 8M or 2500k")
        }
    }
}

extension Start {
    func validate() throws {
        try CoordinatorRanges.duration.validate(duration)
        for words in cameraWords { _ = try CameraArguments.parse(words.split(separator: " ").map(String.init)) }
    }
}

extension Serve {
    func validate() throws {
        try CoordinatorRanges.duration.validate(duration)
        if take.streaming.liveOnly {
            throw ValidationError("--live-only is for start and demo; in serve, Go live in the studio (or type `live on`) "
                + "with no take under way streams without recording")
        }
    }
}

extension Demo {
    func validate() throws {
        try CoordinatorRanges.duration.validate(duration)
        try CoordinatorRanges.demoCameras.validate(cameras)
        try CoordinatorRanges.guestClockOffsetMs.validate(guestClockOffsetMs)
        try CoordinatorRanges.guestClockSkewPpm.validate(guestClockSkewPpm)
        try CoordinatorRanges.guestAudioRatePpm.validate(guestAudioRatePpm)
        _ = try CommandSupport.parseSize(size)
        if let problem = FrameRate.optionProblem(fps) { throw ValidationError(problem) }
    }
}

extension Resume {
    func validate() throws {
        try CoordinatorRanges.reconnectGrace.validate(reconnectGrace)
        if abandon && !without.isEmpty { throw ValidationError("--abandon asks no agent at all; --without is for leaving out some") }
    }
}
