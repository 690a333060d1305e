import DualCamCore
import DualCamProtocol
import Foundation

/// What the user asked for: who records, how, for how long, and where files go.
public struct TakePlan: Sendable {
    public var agents: [AgentEndpoint]
    /// Roles given on the command line (`--host`, `--guest`), overriding the agents' own.
    public var roles: [Dualcam_V1_Role]?
    public var outputDirectory: String
    /// nil: until the user stops it (Enter, Ctrl-C).
    public var durationSeconds: Double?
    public var width: Int = 1280
    public var height: Int = 720
    public var rate: FrameRate = .fps30
    public var encoder: String = "libx264"
    /// The agents' encoder preset: `auto` lets each node measure what it carries.
    public var preset: String = "auto"
    /// The live composite's encoder preset; nil or `auto`: measured on this machine before
    /// the take with the decoding of every camera (`CompositeProbe`) and stepped during it
    /// (`CompositeSteering`), since it must keep real time beside that decoding.
    public var compositePreset: String? = nil
    public var crf: Int = 23
    /// The agents' segment length: 2 s, or 1 s for a take that streams (`streams`), whose
    /// programme is composed from the segments as they arrive and so is one segment late.
    public var segmentMilliseconds: Int = TakePlan.recordingSegmentMilliseconds
    static let recordingSegmentMilliseconds = 2000
    static let streamingSegmentMilliseconds = 1000
    /// Size and rate that came from a preset, not from the user, are lowered to what
    /// every camera delivers (see `CaptureModeFit`).
    public var fitsSizeToCameras = false
    public var fitsRateToCameras = false
    public var genlock: Bool = true
    /// Free-running cameras that can be steered are phase-locked onto the shared grid
    /// (`--no-phase-lock`, config `phase-lock = off`: not in this take).
    public var phaseLock = true
    /// The programme streamed live while recording (`--stream`, `stream =`): none by default.
    /// Streaming halves the segments (glass to receiver on loopback: median 1.5 s at 2 s
    /// segments, 0.9 s at 1 s), unless another length was chosen.
    public var streams: [StreamDestination] = [] {
        didSet {
            guard !streams.isEmpty, segmentMilliseconds == Self.recordingSegmentMilliseconds else { return }
            segmentMilliseconds = Self.streamingSegmentMilliseconds
        }
    }
    /// The programme's bitrate ceiling while it streams (`--stream-bitrate`; nil: by the
    /// streams' size, `effectiveStreamBitrate`). The combined file has the same ceiling
    /// when one encode serves both (no `streamSize` of its own).
    public var streamMaxBitrate: Int?
    /// Whether the streams start with the take (the studio's Go live / End live between takes).
    public var goesLive = true
    /// Live without recording (Go live with no take under way, `--live-only`): the take
    /// runs as any other so the programme can be composed and streamed, and keeps nothing
    /// when it ends (its folder and the agents' spools of it are deleted). Record while
    /// it runs keeps it, from when it went live.
    public var liveOnly = false
    /// The streams' picture size (`--stream-size`; nil: the take's). Another size than the
    /// take's is a second encode, for the streams alone (`StreamEncode`): the combined file
    /// then keeps its own quality, without the streams' ceiling.
    public var streamSize: (width: Int, height: Int)?

    /// The streams are encoded apart from the combined file.
    public var streamsEncodedApart: Bool {
        guard !streams.isEmpty, let size = streamSize else { return false }
        return size.width != width || size.height != height
    }

    /// The size the streams go out at.
    public var streamPicture: (width: Int, height: Int) { streamsEncodedApart ? streamSize! : (width, height) }

    static let noStreams = "this rig streams nowhere: give --stream URL (or `stream =` in coordinator.conf)"

    /// The combined picture's key frame interval in frames: a segment's, but at least 2 s,
    /// the interval streaming platforms ask for (a streaming take's segments are 1 s).
    public var compositeGOPFrames: Int {
        let milliseconds = Int64(max(segmentMilliseconds, Self.recordingSegmentMilliseconds))
        return max(Int(milliseconds * rate.numerator / (1000 * rate.denominator)), 1)
    }

    /// What platforms take at the streams' size: 1.5 Mbit/s up to 360p, 2.5 up to 480p,
    /// 4.5 up to 720p, 6 up to 1080p, 12 above.
    public var effectiveStreamBitrate: Int {
        let pixels = streamPicture.width * streamPicture.height
        let tiers = [(640 * 360, 1_500_000), (854 * 480, 2_500_000), (1280 * 720, 4_500_000), (1920 * 1080, 6_000_000)]
        return streamMaxBitrate ?? tiers.first { pixels <= $0.0 }?.1 ?? 12_000_000
    }
    public var layout: LayoutSpec = LayoutSpec(kind: .pip)
    /// Applied to the combined file only; the per-camera files are never re-encoded.
    public var filter = Filter(kind: .none)
    /// The combined file's sound.
    public var mix = AudioMixSpec.all
    /// The combined file's sound levelled to this integrated loudness (LUFS); nil: the
    /// plain mix.
    public var loudnessTarget: Double? = ProgrammeLoudness.defaultTarget
    /// The director cuts the combined file to whoever speaks (`--director auto`); nil: off.
    public var director: DirectorSettings?
    /// Agents must report an error bound under this before the start is scheduled (nil:
    /// a twentieth of the frame period, `TakeMachine.Settings.defaultClockThreshold`).
    public var clockThresholdNanoseconds: Int64? = nil
    /// How long the start waits for every agent's bound to drop under the threshold.
    public var clockSyncTimeoutNanoseconds: Int64 = 30_000_000_000
    /// How far ahead of "now" T0 is scheduled.
    public var startLeadNanoseconds: Int64 = 1_500_000_000

    /// Seconds of countdown shown before T0 (0: none).
    public var countdownSeconds: Int = 0
    /// How long after the stop a lost agent is waited for before the files are finished
    /// without its missing segments.
    public var reconnectGraceSeconds: Double = 30
    /// Bits per second for the agents' encoders (nil: constant quality, `crf`).
    public var bitrate: Int?
    /// The demo's own agents, which end with it (their spools too).
    public var demo = false
    /// Agents (by name or role, lower case) without which the take does not start.
    public var required: [String] = []
    /// Paired agents that were looked for and not found, each with what to do: a take
    /// without them says so (and keeps it in its warnings).
    public var absentAgents: [String] = []
    /// A take that follows another at once (Stop recording, stay live) starts from what
    /// that one measured: measuring again would add seconds to the stream's gap.
    var measured: Measured?

    struct Measured: Sendable {
        /// Agent name → the preset it recorded at (with the plan's preset `auto`).
        var agentPresets: [String: String] = [:]
        var composite: CompositeProbe.Pending?
    }

    public init(agents: [AgentEndpoint], outputDirectory: String, durationSeconds: Double?) {
        self.agents = agents
        self.outputDirectory = outputDirectory
        self.durationSeconds = durationSeconds
    }

    /// The agents' roles as the take names its cameras: those given on the command line
    /// (`--host`, `--guest`) first, the agents' own for the rest.
    func roles(overriding agents: [Dualcam_V1_Role]) -> [Dualcam_V1_Role] {
        var roles = agents
        for (i, role) in (self.roles ?? []).enumerated() where i < roles.count { roles[i] = role }
        return roles
    }

    func prepare(sessionID: String) -> Dualcam_V1_Prepare {
        var prepare = Dualcam_V1_Prepare()
        prepare.sessionID = sessionID
        prepare.video = videoSettings
        return prepare
    }

    var videoSettings: Dualcam_V1_VideoSettings {
        var video = Dualcam_V1_VideoSettings(width: width, height: height, rate: rate, encoder: encoder, preset: preset, crf: crf,
                                             bitrate: bitrate, segmentMilliseconds: segmentMilliseconds, genlock: genlock)
        video.phaseLockOff = !phaseLock
        return video
    }
}

/// The files a finished session produced.
public struct TakeResult: Sendable {
    public var sessionDirectory: String
    public var perCameraFiles: [String]
    /// Each node's uncompressed sound (WAV), for editors.
    public var soundFiles: [String]
    public var combinedFile: String
    public var manifestFile: String
    /// False for a take that was only live (`TakePlan.liveOnly`): none of these files is left.
    public var kept = true
}
