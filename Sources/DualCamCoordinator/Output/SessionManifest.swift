import DualCamCore
import Foundation

/// Per-camera figures written into manifest.json.
public struct CameraStatistics: Codable, Sendable {
    public var name: String
    public var role: String
    public var framesCaptured: Int
    public var framesDropped: Int
    public var segments: Int
    public var clockOffsetNanoseconds: Double
    public var clockRatePPM: Double
    public var clockErrorBoundNanoseconds: Int64
    public var clockRoundTripNanoseconds: Int64 = 0
    /// The clock over the whole recording (the fields above are its last report).
    public var clockOverSession: ClockSummary? = nil
    /// Times the connection was lost and found again during the session.
    public var reconnects: Int = 0
    /// Times the agent was restarted and recorded the rest of the session again.
    public var rejoins: Int = 0
    /// Segments the agent cut that never reached this coordinator (a gap in its file).
    public var missingSegments: [Int] = []
    /// Its source, encoder and sound, as the agent described them at Prepare (absent in
    /// manifests written before they were kept).
    public var source: String? = nil
    /// Digital zoom changes asked while recording, in order (the zoom before the first is
    /// the camera's own setting); absent when none was. Like the layout's timeline.
    public var zoomTimeline: [ZoomChange]? = nil
    /// How the node encoded: the preset `auto` measured and chose, and every step it took.
    public var encoding: CameraEncoding? = nil
}

/// One digital zoom change in a camera's file: from `presentationNanoseconds` (when the
/// coordinator asked, from T0) the zoom ramps to `factor` at (`centreX`, `centreY`) over
/// `rampMilliseconds`.
public struct ZoomChange: Codable, Sendable, Equatable {
    public var presentationNanoseconds: Int64
    public var factor: Double
    public var centreX: Double
    public var centreY: Double
    public var rampMilliseconds: Int64
}

/// `manifest.json`: what a session was, and how well it went.
struct SessionManifest: Codable {
    struct Camera: Codable {
        var file: String
        var deviceID: String
        var statistics: CameraStatistics
        /// The node's sound uncompressed (WAV) beside the file, for editors; absent when
        /// the node recorded none or kept no uncompressed copy (`--no-lossless-audio`).
        var soundFile: String? = nil
        /// The start timecode of the file (its first frame's); absent in manifests from
        /// before files carried one.
        var timecode: String? = nil
    }
    struct ContactSheet: Codable {
        var file: String
        var thumbnail: String
        /// CPU time scaling the kept pictures while the session recorded.
        var samplingMilliseconds: Double
        /// CPU time tiling, encoding and writing the sheet and the thumbnail at stop.
        var writingMilliseconds: Double
        /// Finishing the files (remux tails, composite tail, sheet) up to the manifest.
        var finalisingMilliseconds: Double
        /// From the stop instant to the manifest: the finalising a user waits for (for a
        /// resumed session, the time it lay unfinished too; nil from rebuild-manifest).
        var sinceStopMilliseconds: Double? = nil
    }
    struct Settings: Codable {
        var width: Int
        var height: Int
        var fps: String
        var encoder: String
        var preset: String
        var crf: Int
        var segmentMilliseconds: Int
        var genlock: Bool
    }
    struct Composite: Codable {
        var file: String
        var layout: String
        var filter: String
        /// Layout changes made while recording, in order; `layout` holds before the first.
        var timeline: [LayoutChange] = []
        /// The rules `layout` and the timeline were written under (`LayoutEdition`);
        /// absent in manifests from before the layouts had fit and anchor, whose names
        /// meant other pictures.
        var layoutEdition: Int? = LayoutEdition.current.rawValue
        /// Filter changes made while recording, in order; `filter` holds before the first.
        /// Absent when the filter never changed.
        var filterTimeline: [FilterChange]? = nil
        var ticks: Int
        var pairs: Int
        var repeats: Int
        var noSignal: Int
        var droppedFrames: Int
        /// |frame time - tick time| over every fresh frame shown.
        var frameError: Distribution
        /// How far apart the cameras' frames were on ticks where all had a fresh one:
        /// the measured pairing error between cameras.
        var pairSpread: Distribution
        /// The sound mix (`AudioMixSpec`); absent in manifests from before sound.
        var mix: String? = nil
        /// Mix changes made while recording, in order; `mix` holds before the first.
        /// Absent when the mix never changed.
        var mixTimeline: [MixChange]? = nil
        /// How the file was encoded: live (the composite's fast preset, tune zerolatency),
        /// or what `recompose` used. Absent in manifests written before it was recorded.
        var encoding: Encoding?
        /// When `recompose` last re-rendered the file (ISO 8601); absent for the live one.
        var recomposedAt: String?
        /// The director's cuts, when it cut this file (`--director auto`).
        var director: DirectorRecord? = nil
        /// The sound's loudness as written (absent before it was levelled, or `--loudness off`).
        var loudness: Loudness? = nil
    }
    struct Encoding: Codable {
        var encoder: String
        var preset: String
        var tune: String?
        /// Constant quality, or nil when `bitrate` was set.
        var crf: Int?
        /// Bits per second, or nil in constant-quality mode.
        var bitrate: Int?
        var gopFrames: Int
        /// The live composite's `auto` (issue 19), nil otherwise: the preset chosen by
        /// measuring before the take is `preset`; `speed` its whole composite's frames per
        /// second (every camera decoded, composed, encoded) over the rate; `measured` each
        /// preset's; `switches` where the composite stepped to another preset.
        var automatic: Bool? = nil
        var speed: Double? = nil
        var measured: [String: Double]? = nil
        var switches: [PresetSwitch]? = nil
        /// The streams' own encode (`--stream-size` other than the take's), nil when they
        /// share this one.
        var streams: StreamEncoding? = nil
    }
    /// The streams' own encode: its size, its preset and how it was chosen (`automatic`:
    /// measured before the take with the file's whole frame counted on each preset, `speed`
    /// over the rate, `measured` each preset's frames per second).
    struct StreamEncoding: Codable, Equatable {
        var width: Int
        var height: Int
        var preset: String
        var automatic: Bool
        var speed: Double? = nil
        var measured: [String: Double]? = nil
    }
    struct PresetSwitch: Codable, Equatable {
        /// The composite's frame (a keyframe) from which `preset` encodes.
        var presentationNanoseconds: Int64
        var preset: String
        var reason: String
    }
    struct MixChange: Codable {
        /// Presentation time from T0 at which `mix` takes over (at that instant's sample).
        var presentationNanoseconds: Int64
        /// As `--mix` takes it: "all", "host", "host=0,guest=-6".
        var mix: String
    }
    struct FilterChange: Codable {
        /// Presentation time from T0 at which `filter` takes over.
        var presentationNanoseconds: Int64
        /// As `filter` is written: "vivid 80%".
        var filter: String
    }
    struct LayoutChange: Codable {
        /// Presentation time from T0 at which `layout` takes over.
        var presentationNanoseconds: Int64
        /// Canonical text, as `--layout` takes it.
        var layout: String
        /// Who made the change in a file the director cut: `director` or `operator`
        /// (absent in a file without a director).
        var by: String? = nil
    }
    struct Distribution: Codable {
        var count: Int
        var meanMicroseconds: Double
        var p50Microseconds: Double
        var p99Microseconds: Double
        var maxMicroseconds: Double

        init(_ d: ErrorDistribution) {
            count = d.count
            meanMicroseconds = d.meanNanoseconds / 1000
            p50Microseconds = Double(d.p50Nanoseconds) / 1000
            p99Microseconds = Double(d.p99Nanoseconds) / 1000
            maxMicroseconds = Double(d.maxNanoseconds) / 1000
        }
    }
    var sessionID: String
    var startWallTime: String
    var t0SharedNanoseconds: Int64
    /// Where the recording ended on the shared clock.
    var stopSharedNanoseconds: Int64 = 0
    var durationSeconds: Double
    var settings: Settings
    var cameras: [Camera]
    var composite: Composite
    /// Renders `recompose` made beside the combined file, oldest first, each in a file of
    /// its own (`composite` stays the live one unless a recompose was told `--replace`).
    var renders: [Composite]? = nil
    var warnings: [String]
    /// The timecode at T0 (`HH:MM:SS:FF`, `;FF` in drop-frame), which every file counts
    /// from; absent in manifests from before files carried one.
    var timecode: String? = nil
    /// The contact sheet and thumbnail made from the combined file at finalisation, with
    /// what they cost; absent in manifests from before them.
    var contactSheet: ContactSheet? = nil
    /// The nodes' offset measured from their sound (cross-correlation), at the start and
    /// the end: a check of the clock figures above that does not rely on them. Absent
    /// in manifests from before sound, or when fewer than two cameras recorded any.
    var audioSync: [AudioSyncCheck.Entry]? = nil
    /// Recordings from other devices placed on the timeline by their sound (`import`);
    /// absent until the first.
    var imports: [ImportRecord]? = nil
    /// The clocks' true error read from the frame codes of test-pattern sources, and how
    /// far apart such cameras really were; absent without such sources, and in manifests
    /// from before it was measured.
    var clockTruth: ClockTruthCheck.Report? = nil
    /// Camera phase, not clock error: how far apart in time the frames the combined
    /// picture put together were captured, per pair of cameras, and each camera against
    /// the take's frame grid; absent in manifests from before it was measured.
    var framePhase: FramePhaseRecord? = nil
    /// The coordinator's CPU while the take recorded; absent in manifests from before it
    /// was measured, and for a manifest rebuilt by `rebuild-manifest` (no take to measure).
    var coordinatorCPU: CoordinatorCPU? = nil
    /// The programme's live streams (`--stream`): each destination (its key masked), how
    /// long it was live, reconnects, frames dropped for a slow uplink, and what happened
    /// when; absent when nothing was streamed.
    var liveOut: [StreamRecord]? = nil
}
