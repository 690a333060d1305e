/// A session as an editor's timeline: every camera's file and the combined one placed on
/// the session's shared timeline (frame 0 is T0), each with the start timecode its file
/// carries. The writers (FCPXML, xmeml, OTIO, EDL) turn it into text; nothing here reads
/// a file.
public struct EditTimeline: Sendable {
    public struct Sound: Sendable {
        /// As written into the timeline: relative to it, or absolute.
        public var path: String
        public var channels: Int
        public var sampleRate: Int

        public init(path: String, channels: Int, sampleRate: Int) {
            self.path = path
            self.channels = channels
            self.sampleRate = sampleRate
        }
    }

    public struct Clip: Sendable {
        /// "Host", "Guest", "Camera3", "Combined": what the editor shows.
        public var name: String
        /// "host", "guest", "camera", "combined".
        public var role: String
        public var path: String
        /// The file's first frame on the session's timeline, in frames from T0.
        public var startFrame: Int64
        public var durationFrames: Int64
        /// The timecode of the file's first frame, as its timecode track says (00:00:00:00
        /// for a file without one, as an editor reads it).
        public var sourceStart: SMPTETimecode
        public var hasAudio: Bool
        /// The node's uncompressed sound beside the file, starting where the file starts.
        public var sound: Sound?

        public init(name: String, role: String, path: String, placement: ClipPlacement, sourceStart: SMPTETimecode,
                    hasAudio: Bool, sound: Sound? = nil) {
            self.name = name
            self.role = role
            self.path = path
            startFrame = placement.startFrame
            durationFrames = placement.durationFrames
            self.sourceStart = sourceStart
            self.hasAudio = hasAudio
            self.sound = sound
        }

        public var endFrame: Int64 { startFrame + durationFrames }
    }

    /// Another recorder's sound placed on the take by `import`: a Broadcast Wave whose
    /// first sample is T0 (its time reference is the timeline's start timecode).
    public struct ImportedSound: Sendable {
        public var name: String
        public var sound: Sound
        public var durationFrames: Int64

        public init(name: String, sound: Sound, durationFrames: Int64) {
            self.name = name
            self.sound = sound
            self.durationFrames = durationFrames
        }
    }

    public var name: String
    public var rate: FrameRate
    public var width: Int
    public var height: Int
    /// The timecode at T0, where the timeline starts.
    public var start: SMPTETimecode
    public var cameras: [Clip]
    public var combined: Clip
    /// The director's cut (`ProgrammeShot`), empty when no file of the take was cut by it.
    public var programme: [ProgrammeShot] = []
    /// The file the programme's group and wide shots come from when it is not `combined`
    /// (a `recompose --director` render).
    public var programmeComposite: Clip?
    /// Imported recorders' sound, each on a track of its own below the cameras'.
    public var imports: [ImportedSound] = []

    public init(name: String, rate: FrameRate, width: Int, height: Int, start: SMPTETimecode, cameras: [Clip], combined: Clip) {
        self.name = name
        self.rate = rate
        self.width = width
        self.height = height
        self.start = start
        self.cameras = cameras
        self.combined = combined
    }

    public var durationFrames: Int64 { ([combined] + cameras).map(\.endFrame).max() ?? 0 }
}
