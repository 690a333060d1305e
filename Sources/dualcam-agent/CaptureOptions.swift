import ArgumentParser
import DualCamAgent
import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation

/// Where frames come from and how they are encoded: shared by `run` and `record`.
struct CaptureOptions: ParsableArguments {
    @Option(help: "Frame source: v4l2, stdin or synthetic (default: the first camera `dualcam-agent cameras` lists that DualCam can read, else the synthetic test pattern).")
    var source: String?
    @Option(help: "V4L2 camera node (implies --source v4l2; default: the first usable camera).") var device: String?
    @Option(help: "V4L2 pixel format to force, e.g. YUYV, MJPG, H264 (default: negotiated; see `dualcam-agent cameras`).")
    var pixelFormat: String?
    @Option(help: "Piped input format (with --source stdin): yuv420p or h264.") var format = "yuv420p"
    // .unconditional: a value starting with "-" is the value (here and below), so that a
    // negative number is taken, or refused with its range, rather than read as an option.
    @Option(parsing: .unconditional, help: "Piped input: ms between capture and the frame reaching the pipe, subtracted from arrival times.")
    var inputLatencyMs: Double = 0
    @Option(help: "Picture size WxH.") var size = "1280x720"
    @Option(help: "Frame rate, e.g. 24, 25, 30, 30000/1001, 50, 60 (a camera's own rates work too).") var fps = "30"
    @Option(help: "Encoder: libx264 (default), h264_v4l2m2m (Pi 4 hardware; falls back to libx264), libx265.")
    var encoder = "libx264"
    @Option(help: "Encoder preset: auto (measure before each take and keep --preset-headroom times real time, stepping faster during a take when the node gets busy) or x264/x265's ultrafast ... veryslow, which a coordinator's take left on auto keeps.")
    var preset = "auto"
    @Option(parsing: .unconditional, help: "With --preset auto: how many times faster than real time the chosen preset must encode (default 1.5). More leaves more of the node to other work: a node that also runs the coordinator or the operator's browser wants 2 to 3 (`dualcam-coordinator demo` gives its agents 2.5).")
    var presetHeadroom: Double = PresetChoice.headroom
    @Option(parsing: .unconditional, help: "Constant quality, 0-51 (lower is better; default 23). Exclusive with --bitrate.") var crf: Int?
    @Option(help: "Target bitrate in bit/s, e.g. 6000000 or 6M. Exclusive with --crf.") var bitrate: String?
    @Option(parsing: .unconditional, help: "Segment length in seconds.") var segmentSeconds: Double = 2
    @Option(parsing: .unconditional, help: "MB of disk kept free: recording stops at the segment boundary where less would remain.")
    var diskReserveMb: Double = 64
    @Flag(name: .customLong("genlock"), help: "Synthetic source: frames on the shared clock's grid (default).")
    var genlockFlag = false
    @Flag(name: .customLong("free-run"), help: "Synthetic source: frames follow the local clock from an arbitrary phase, as a camera's do.")
    var freeRun = false
    @Option(parsing: .unconditional, help: "Synthetic free-running source: its frames fall this many ms after the shared clock's frame grid (default: an arbitrary phase, as a camera's; for testing).")
    var freeRunPhaseMs: Double?
    @Option(parsing: .unconditional, help: "Synthetic free-running source: its crystal's error in ppm (+ runs fast; for testing the phase lock).")
    var freeRunCrystalPpm: Double = 0
    @Flag(help: "Never steer a free-running camera's frame durations onto the shared frame grid (the phase lock is on by default wherever the source can be steered: the synthetic source, a Pi camera module with --pi-sync-port), nor start a V4L2 camera aligned onto it.")
    var noPhaseLock = false
    @Option(parsing: .unconditional, help: "Piped input from `rpicam-vid --sync client` (rpicam-apps 1.6 or later): steer the Pi camera onto the shared frame grid by sending its sync client our grid on this UDP port of 127.0.0.1 (rpicam-vid listens on 10000). Keep the port closed to the network: the client obeys any sender.")
    var piSyncPort: Int?
    @Option(parsing: .unconditional, help: "Testing: the node's clock estimate steps by this many µs at --simulate-estimate-step-at-s (0: never), as a re-converging estimate would.")
    var simulateEstimateStepUs: Double = 0
    @Option(parsing: .unconditional, help: "Testing: when the clock estimate steps, in seconds after the agent starts.")
    var simulateEstimateStepAtS: Double = 0
    @Option(help: "V4L2: append each delivered buffer's driver sequence number and timestamp (ns) to this file, to check a camera's timing.")
    var frameLog: String?
    @Option(help: "Sound: synthetic (tone bursts, the default with --source synthetic), alsa (a microphone, the default when --microphone is given), file:PATH (a sound file played as the microphone, its first sample at the take's start; silence after its end) or none.")
    var audio: String?
    @Option(help: "ALSA capture device, e.g. default, plughw:1,0 (see `dualcam-agent microphones`).") var microphone: String?
    @Option(parsing: .unconditional, help: "The sound card's sample rate: 48000 or 44100 (the recorded track is 48 kHz either way).") var audioRate = 48_000
    @Option(parsing: .unconditional, help: "Sound channels: 1 (mono) or 2 (stereo).") var audioChannels = 1
    @Option(parsing: .unconditional, help: "Microphone sample size: 16 or 24 bits.") var audioBits = 16
    @Option(parsing: .unconditional, help: "Microphone gain in dB, -12 to +12.") var gain: Double = 0
    @Option(parsing: .unconditional, help: "AAC bitrate in bit/s.") var audioBitrate = 128_000
    @Flag(help: "Record video only (no sound track).") var mute = false
    @Flag(help: "No uncompressed copy of the sound in the segments (no WAV for editors; about 1.9 Mbit/s less to send).")
    var noLosslessAudio = false
    @Option(parsing: .unconditional, help: "Synthetic sound: simulated sound-card rate error in ppm against the node's clock (testing).")
    var simulateAudioRatePpm: Double = 0
    @Option(parsing: .unconditional, help: "Synthetic source: simulated clock offset in ms (testing).") var simulateClockOffsetMs: Double = 0
    @Option(parsing: .unconditional, help: "Synthetic source: simulated clock skew in ppm (testing).") var simulateClockSkewPpm: Double = 0

    func validate() throws {
        if crf != nil && bitrate != nil { throw ValidationError("--crf and --bitrate exclude each other; pick one") }
        if let problem = FrameRate.optionProblem(fps) { throw ValidationError(problem) }
        try AgentRanges.crf.validate(crf)
        try AgentRanges.presetHeadroom.validate(presetHeadroom)
        if genlockFlag && freeRun { throw ValidationError("--genlock and --free-run exclude each other") }
        try AgentRanges.freeRunPhaseMs.validate(freeRunPhaseMs)
        try AgentRanges.freeRunCrystalPpm.validate(freeRunCrystalPpm)
        try AgentRanges.simulateEstimateStepUs.validate(simulateEstimateStepUs)
        try AgentRanges.simulateEstimateStepAtS.validate(simulateEstimateStepAtS)
        if let problem = VideoEncoderSettings.problem(encoder: encoder, preset: preset) { throw ValidationError(problem) }
        try AgentRanges.segmentSeconds.validate(segmentSeconds)
        try AgentRanges.inputLatencyMs.validate(inputLatencyMs)
        try AgentRanges.diskReserveMb.validate(diskReserveMb)
        try AgentRanges.gain.validate(gain)
        try AgentRanges.audioBitrate.validate(audioBitrate)
        try AgentRanges.simulateAudioRatePpm.validate(simulateAudioRatePpm)
        try AgentRanges.simulateClockOffsetMs.validate(simulateClockOffsetMs)
        try AgentRanges.simulateClockSkewPpm.validate(simulateClockSkewPpm)
        // settings() resolves the source too (with no --source, by listing the cameras).
        _ = try settings()
    }

    /// `--source`, or when it is not given: v4l2 when `--device` is, else the first
    /// usable camera, else the synthetic pattern (a node with no camera).
    func sourceConfig() throws -> SourceConfig {
        switch source ?? (device != nil ? "v4l2" : nil) {
        case nil:
            guard let camera = V4L2Catalog.firstUsableCamera() else { return .synthetic }
            return .v4l2(device: camera.path, pixelFormat: pixelFormat)
        case "synthetic": return .synthetic
        case "v4l2":
            guard let device = device ?? V4L2Catalog.firstUsableCamera()?.path else {
                throw ValidationError("--source v4l2 found no camera DualCam can read; `dualcam-agent cameras` lists what is there, or give --device")
            }
            return .v4l2(device: device, pixelFormat: pixelFormat)
        case "stdin":
            guard let f = SourceConfig.StdinFormat(rawValue: format) else {
                throw ValidationError("--format must be yuv420p or h264 (what rpicam-vid --codec yuv420 or --codec h264 writes)")
            }
            return .stdin(f)
        default:
            throw ValidationError("--source must be synthetic, v4l2 or stdin")
        }
    }

    /// What to log when the source was chosen for the user; nil when they named it.
    func chosenSourceNote(_ chosen: SourceConfig) -> String? {
        guard source == nil, device == nil else { return nil }
        if case .v4l2(let device, _) = chosen { return "no --source: recording the camera at \(device) (`dualcam-agent cameras`)" }
        return "no --source and no camera DualCam can read: recording the synthetic test pattern"
    }

    func settings() throws -> RecordingSettings {
        guard let (width, height) = Sizes.parse(size) else {
            throw ValidationError("--size must look like 1280x720 (even numbers, at most \(Sizes.largest))")
        }
        if let problem = FrameRate.optionProblem(fps) { throw ValidationError(problem) }
        guard let rate = FrameRate(parsing: fps) else { throw ValidationError("--fps \(fps) is not a rate") }
        var bits: Int?
        if let bitrate {
            guard let parsed = Self.parseBitrate(bitrate) else {
                throw ValidationError("--bitrate must be bits per second, e.g. 6000000 or 6M")
            }
            try AgentRanges.bitrate.validate(parsed)
            bits = parsed
        }
        var settings = RecordingSettings(width: width, height: height, rate: rate, encoder: encoder, preset: preset,
                                         crf: bits == nil ? (crf ?? 23) : nil, bitrate: bits,
                                         segmentNanoseconds: Int64(segmentSeconds * 1e9), genlock: !freeRun)
        settings.source = try sourceConfig()
        if case .stdin = settings.source { settings.pipe = CaptureMode(width: width, height: height, rate: rate) }
        settings.presetHeadroom = presetHeadroom
        settings.inputLatencyNanoseconds = Int64(inputLatencyMs * 1e6)
        settings.diskReserveBytes = Int64(max(diskReserveMb, 0) * 1e6)
        settings.frameLogPath = frameLog
        settings.freeRunPhaseNanoseconds = freeRunPhaseMs.map { Int64(($0 * 1e6).rounded()) }
        settings.crystalPPM = freeRunCrystalPpm
        settings.phaseLock = !noPhaseLock
        if let piSyncPort {
            guard case .stdin = settings.source else {
                throw ValidationError("--pi-sync-port steers a Pi camera piped in by `rpicam-vid --sync client`: it needs --source stdin")
            }
            guard (1...65_535).contains(piSyncPort) else { throw ValidationError("--pi-sync-port must be 1-65535 (rpicam-vid listens on 10000)") }
            settings.piSyncPort = noPhaseLock ? nil : piSyncPort
        }
        settings.audio = try audioSettings(videoSource: settings.source)
        return settings
    }

    func audioSettings(videoSource: SourceConfig) throws -> AudioSettings {
        let source: AudioSettings.Source
        switch audio ?? (microphone != nil ? "alsa" : (videoSource == .synthetic ? "synthetic" : "none")) {
        case "synthetic": source = .synthetic
        case "alsa": source = .alsa(device: microphone ?? "default")
        case "none": source = .none
        case let value where value.hasPrefix("file:"):
            source = .file(path: try Self.soundFile(String(value.dropFirst("file:".count))))
        default: throw ValidationError("--audio must be synthetic, alsa, file:PATH or none")
        }
        var settings = AudioSettings(source: mute ? .none : source, sampleRate: audioRate, channels: audioChannels,
                                     bits: audioBits, gainDB: gain, bitRate: audioBitrate,
                                     simulatedRatePPM: simulateAudioRatePpm)
        settings.lossless = !noLosslessAudio
        if let problem = settings.problem { throw ValidationError(problem) }
        return settings
    }

    /// The sound file of `--audio file:PATH`, made absolute (a service's folder is not the
    /// shell's) and opened once now, so that a wrong path is refused before any take
    /// rather than costing one its sound.
    static func soundFile(_ path: String) throws -> String {
        guard !path.isEmpty else { throw ValidationError("--audio file: needs the sound file's path, e.g. --audio file:/home/me/voice.wav") }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if let problem = AudioSettings.fileProblem(path: absolute) { throw ValidationError(problem) }
        return absolute
    }

    /// `--simulate-estimate-step-us`: nil when not asked for.
    func estimateStep(startLocal: Int64) -> AgentClock.EstimateStep? {
        guard simulateEstimateStepUs != 0 else { return nil }
        return AgentClock.EstimateStep(atLocalNanoseconds: startLocal + Int64(simulateEstimateStepAtS * 1e9),
                                       nanoseconds: Int64((simulateEstimateStepUs * 1e3).rounded()))
    }

    func simulatedError() -> SimulatedClockError {
        SimulatedClockError(offsetNanoseconds: Int64(simulateClockOffsetMs * 1e6), skewPPM: simulateClockSkewPpm,
                            processStartNanoseconds: MonotonicTime.now())
    }

    static func parseBitrate(_ text: String) -> Int? { VideoEncoderSettings.parseBitrate(text) }
}

enum Sizes {
    /// 8K: no camera or encoder DualCam drives gives more, so a larger size is a typo,
    /// refused before gigabyte pictures are allocated for it.
    static let largest = "7680x4320"

    static func parse(_ text: String) -> (Int, Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...7680).contains(w), (1...4320).contains(h),
              w % 2 == 0, h % 2 == 0 else { return nil }
        return (w, h)
    }
}
