import DualCamCore
import Foundation

/// What any screen (the terminal, the studio, a test) sees of the rig: a snapshot after
/// every change, plus notices (one-off lines: warnings, events). Values only; nothing to
/// parse. See docs/RIG.md.
public struct RigSnapshot: Sendable, Equatable {
    public var agents: [AgentStatus] = []
    /// The take under way, or the last one (until the next starts).
    public var take: TakeStatus?
    /// True while a take is between its start and its end: a new one cannot start.
    public var busy: Bool { take.map { !$0.isOver } ?? false }
}

public struct AgentStatus: Sendable, Equatable {
    public enum Connection: Sendable, Equatable {
        case connecting
        case connected
        /// Lost at this shared instant; being reconnected.
        case lost(sinceSeconds: Double)

        /// The state without its instant, as the studio's JSON names it (docs/STUDIO.md).
        public enum State: String, Sendable, Codable, CaseIterable {
            case connecting, connected, lost
        }

        public var state: State {
            switch self {
            case .connecting: .connecting
            case .connected: .connected
            case .lost: .lost
            }
        }
    }

    public var name: String
    public var role: String
    /// The name of its camera in the take's files ("Host", "Guest", "Camera3"), once known.
    public var cameraName: String
    public var deviceID: String
    public var address: String
    public var connection: Connection
    public var clock: ClockStatus?
    public var telemetry: AgentTelemetry?
    /// Seconds of the take recorded on the agent but not yet held here.
    public var uploadLagSeconds: Double?
    /// In the current take: every segment held.
    public var complete: Bool
    public var givenUp: Bool
    /// Connected, but its camera cannot record now: why, as a sentence saying what to do
    /// (an agent of protocol 1.8 or later says so; nil: ready, or an older agent). A take
    /// records without such a node: screens show it as NOT READY.
    public var sourceProblem: String? = nil
}

public struct ClockStatus: Sendable, Equatable {
    public var locked: Bool
    public var errorBoundMicroseconds: Int64
    public var offsetMilliseconds: Double
    public var ratePPM: Double
    public var roundTripMicroseconds: Int64
}

public struct AgentTelemetry: Sendable, Equatable {
    public var captureFPS: Double
    public var framesDropped: UInt64
    /// nil when the node cannot read it.
    public var temperatureC: Double?
    public var throttled: Bool
    public var freeDiskBytes: UInt64
    /// nil when the node records no sound.
    public var sound: SoundLevels?
    /// The encoder preset in effect ("" from an agent before 1.6).
    public var preset: String = ""
    /// Set while even the fastest preset cannot keep up (frames are being dropped).
    public var encoderShortfall: String?
}

public struct SoundLevels: Sendable, Equatable {
    public var peakDBFS: Double
    public var rmsDBFS: Double
    public var clipping: Bool { peakDBFS >= -0.1 }
}

public struct TakeStatus: Sendable, Equatable {
    public var sessionID: String?
    public var phase: TakePhase
    public var isOver: Bool
    /// Whole seconds to T0 while counting down.
    public var countdownSeconds: Int?
    /// Seconds since T0 (to the stop, once decided).
    public var elapsedSeconds: Double
    /// Segments composed out of those known, while finalising.
    public var finalising: Progress?
    public var layout: String
    public var warnings: [String]
    /// Why the take failed or was cancelled.
    public var reason: String?
    public var files: TakeResult?
    /// The rig's agent index of each of the take's cameras, in the composite's stream order.
    public var cameras: [Int] = []
    /// The composite's size.
    public var outputWidth = 0
    public var outputHeight = 0
    /// The combined file's filter now.
    public var filter = FilterSetting(kind: .none)
    /// The combined file's sound mix now.
    public var mix = AudioMixSpec.all
    /// What the take records on each node, as said when its countdown started: source,
    /// sound (or none, loudly), disk and how long it lasts, clock, temperature; the nodes
    /// not there. Empty before then.
    public var preflight: [String] = []
    /// The director, in a take cut by it (nil otherwise).
    public var director: DirectorStatus?
    /// The cameras' phase as the combined picture pairs them, from its first frames on
    /// (nil before): camera timing, which the clock's figures do not show.
    public var framePhase: FramePhase?
    /// The programme's live streams (`--stream`), each destination's state and health;
    /// empty when it is not streamed.
    public var liveOut: [LiveStreamStatus] = []
    /// Live without recording (`TakePlan.liveOnly`): nothing of it is kept unless Record
    /// is pressed while it runs.
    public var liveOnly = false

    public struct DirectorStatus: Sendable, Equatable {
        /// False while the operator has the programme.
        public var following: Bool
        /// Per camera of the take (`cameras`' order): in a turn, as the director heard it
        /// in the composed sound (a segment or two behind the live preview).
        public var speaking: [Bool]
        /// The cameras the director's shot shows (indices into `cameras`), nil before it
        /// has heard anything.
        public var shot: [Int]?
        /// The layout the director's shot is drawn in (nil before it has heard anything).
        public var programme: String?
        public var cuts: Int
    }

    public struct Progress: Sendable, Equatable {
        public var done: Int
        public var total: Int
    }
}

/// What a screen may ask of the rig. Each is checked before anything changes; a refused
/// command throws `RigError` and changes nothing.
public enum RigCommand: Sendable {
    /// Starts a take with these settings (its `agents` are ignored: every connected agent
    /// of the rig records).
    case start(TakePlan)
    case stop(reason: String)
    /// Stop recording, stay live: the take ends and its files are kept as at any stop,
    /// and the programme goes on streaming from a take that is only live (as `goLive`,
    /// with the layout, filter and mix on air). The streams pause while one take hands
    /// over to the next (a few seconds, docs/LIVE.md) and connect again. Refused unless
    /// the take records and is live.
    case stopRecording(reason: String)
    case layout(LayoutSpec)
    case nextLayout
    case swap
    /// `p`: in pip the window's next position, elsewhere the pictures' next framing
    /// (`LayoutSpec.nextPlacement`); refused, saying why, when no step changes the picture.
    case nextPlacement
    /// The combined file's filter from the next frame (kept in the manifest's filter
    /// timeline), while recording.
    case filter(Filter)
    /// The combined file's sound mix from the next frame's sample (kept in the manifest's
    /// mix timeline), while recording.
    case mix(AudioMixSpec)
    /// With `--director auto`: true hands the programme back to the director, false takes
    /// it over on the operator's layout (as choosing any layout does).
    case director(Bool)
    /// With `--stream`: false ends the programme's streams (End live), true sends them
    /// again (Go live); before a take, false: the next take does not go live at its start.
    /// The recording is not touched either way; a take that is only live (`goLive`) ends.
    case live(Bool)
    /// Go live with no take under way: a take that streams and keeps nothing
    /// (`TakePlan.liveOnly`) starts with this plan. During a take, the same as `live(true)`.
    case goLive(TakePlan)
}

public struct RigError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A take stopped before it recorded anything (before T0): every agent that answered has
/// stopped; `folderKept` when one did not, so that `resume` can still reach it.
public struct TakeCancelled: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public let sessionID: String
    public let folderKept: Bool

    public var description: String {
        folderKept
            ? "take \(sessionID) cancelled (\(reason)) before it recorded; an agent did not confirm it stopped: `dualcam-coordinator resume` stops it"
            : "take \(sessionID) cancelled (\(reason)) before it recorded: every agent stopped, nothing was kept"
    }
}

extension TakeResult: Equatable {
    public static func == (a: TakeResult, b: TakeResult) -> Bool {
        a.sessionDirectory == b.sessionDirectory && a.perCameraFiles == b.perCameraFiles && a.combinedFile == b.combinedFile
            && a.manifestFile == b.manifestFile && a.soundFiles == b.soundFiles
    }
}
