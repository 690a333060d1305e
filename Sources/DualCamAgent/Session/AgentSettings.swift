import DualCamCore
import DualCamMedia
import DualCamProtocol

/// What an agent records with: the coordinator's Prepare merged over the agent's own
/// command-line defaults.
public struct RecordingSettings: Sendable {
    public var width: Int
    public var height: Int
    public var rate: FrameRate
    public var encoder: String
    public var preset: String
    public var crf: Int?
    public var bitrate: Int?
    public var segmentNanoseconds: Int64
    public var genlock: Bool
    /// Agent-side only: the coordinator's Prepare never changes where frames come from.
    public var source: SourceConfig = .synthetic
    /// The synthetic source's label and colour: the node's own name and role (nil: none).
    public var patternIdentity: PatternIdentity?
    /// Piped input: how long the producer holds a frame before writing it (capture to
    /// pipe), subtracted from the arrival instant.
    public var inputLatencyNanoseconds: Int64 = 0
    /// Free space the spool's disk keeps: a recording stops at the segment boundary
    /// where less would remain (at least three segments' worth).
    public var diskReserveBytes: Int64 = DiskGuard.defaultReserveBytes
    /// The synthetic free-running source's phase: its frames fall this far after the
    /// shared clock's frame grid (nil: an arbitrary phase, as a camera's). For tests and
    /// demonstrations that need a known worst case.
    public var freeRunPhaseNanoseconds: Int64?
    /// The synthetic free-running source's crystal error in ppm (+: its frames come early).
    public var crystalPPM: Double = 0
    /// A free-running source that can be steered is phase-locked onto the shared grid, and
    /// a V4L2 camera, which cannot, is started so that its first frame lands on it: the
    /// agent's `--no-phase-lock` turns both off for good, a Prepare's for its take.
    public var phaseLock = true
    /// Piped input from `rpicam-vid --sync client`: its sync client's UDP port on this
    /// host, sent our frame grid (`PiSyncSender`; nil: not steered).
    public var piSyncPort: Int?
    /// V4L2: where each delivered buffer's sequence and driver timestamp is logged.
    public var frameLogPath: String?
    /// `--preset auto`: real time × this is what the chosen preset must sustain (agent-side:
    /// how much of the node the take's encoder may take is its owner's to say). A node
    /// that also runs the coordinator or the operator's browser wants more than the
    /// default; `demo`, which runs every agent there too, gives its agents 2.5.
    public var presetHeadroom = PresetChoice.headroom
    /// The node's microphone (agent-side, like the camera).
    public var audio = AudioSettings()
    /// Piped input: the producer's picture size and rate, fixed by the agent's command
    /// line. A coordinator's Prepare cannot change what another program writes into the
    /// pipe: its size is met by scaling, and the pipe's rate stays.
    public var pipe: CaptureMode?

    /// What the pipe delivers: as set on the command line, else this recording's mode.
    var pipeMode: CaptureMode { pipe ?? CaptureMode(width: width, height: height, rate: rate) }

    public init(width: Int = 1280, height: Int = 720, rate: FrameRate = .fps30, encoder: String = "libx264",
                preset: String = "veryfast", crf: Int? = 23, bitrate: Int? = nil,
                segmentNanoseconds: Int64 = 2_000_000_000, genlock: Bool = true) {
        self.width = width
        self.height = height
        self.rate = rate
        self.encoder = encoder
        self.preset = preset
        self.crf = crf
        self.bitrate = bitrate
        self.segmentNanoseconds = segmentNanoseconds
        self.genlock = genlock
    }

    /// Applies the fields a Prepare sets; zero means "agent default".
    public func merged(with video: Dualcam_V1_VideoSettings) -> RecordingSettings {
        var s = self
        if video.width > 0 { s.width = Int(video.width) }
        if video.height > 0 { s.height = Int(video.height) }
        if video.fpsNum > 0 { s.rate = FrameRate(Int64(video.fpsNum), Int64(max(video.fpsDen, 1))) }
        if let pipe { s.rate = pipe.rate }
        if !video.encoder.isEmpty { s.encoder = video.encoder }
        // A take left on `auto` is the node's to decide: a preset its owner fixed
        // (`--preset`, `preset =` in agent.conf) holds; a take naming one (a rejoining
        // agent's own, kept) wins.
        if !video.preset.isEmpty, video.preset != VideoEncoderSettings.automaticPreset { s.preset = video.preset }
        if video.bitrate > 0 { s.bitrate = Int(video.bitrate); s.crf = nil }
        if video.crf > 0 { s.crf = Int(video.crf); s.bitrate = nil }
        if video.segmentMs > 0 { s.segmentNanoseconds = Int64(video.segmentMs) * 1_000_000 }
        // A source genlocks when the session asks and the agent was not told to free-run
        // (`--free-run` is the node's own camera behaviour, which a Prepare cannot change).
        s.genlock = video.genlock && genlock
        s.phaseLock = phaseLock && !video.phaseLockOff
        return s
    }

    public var wire: Dualcam_V1_VideoSettings {
        var video = Dualcam_V1_VideoSettings(width: width, height: height, rate: rate, encoder: encoder, preset: preset, crf: crf,
                                             bitrate: bitrate, segmentMilliseconds: Int(segmentNanoseconds / 1_000_000),
                                             genlock: genlock)
        video.phaseLockOff = !phaseLock
        return video
    }

    /// `--preset auto`: the encoder measures its presets at Prepare (EncoderProbe).
    public var isAutomaticPreset: Bool { preset == VideoEncoderSettings.automaticPreset }

    /// What an automatic preset opens with before it is measured (and where it never is:
    /// a local recording's encoder opened before its first frames): the old default.
    static let provisionalPreset = "veryfast"

    var encoderSettings: VideoEncoderSettings {
        let framesPerSegment = Int((segmentNanoseconds * rate.numerator) / (1_000_000_000 * rate.denominator))
        return VideoEncoderSettings(encoder: encoder, width: width, height: height, rate: rate,
                                    preset: isAutomaticPreset ? Self.provisionalPreset : preset,
                                    tune: "zerolatency", crf: crf, bitrate: bitrate,
                                    gopFrames: max(framesPerSegment, 1), threads: 0)
    }
}
