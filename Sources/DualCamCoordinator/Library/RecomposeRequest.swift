import DualCamCore
import Foundation

/// What `recompose` is asked to change; every nil keeps what the session has.
public struct RecomposeRequest: Sendable {
    /// A new layout for the whole file; nil replays the manifest's layout and its changes.
    public var layout: LayoutSpec?
    public var filter: Filter?
    /// The sound mix; nil keeps the session's.
    public var mix: AudioMixSpec?
    /// Cut by the director from the recorded sound (`--director auto`) over `layout` (or
    /// the session's first layout) instead of replaying the session's layout changes.
    public var director: DirectorSettings?
    /// The render's sound levelled to this loudness (LUFS); nil: the plain mix.
    public var loudnessTarget: Double? = ProgrammeLoudness.defaultTarget
    public var encoder: String?
    public var preset: String?
    /// Constant quality; setting it clears a bitrate the session had, and the reverse.
    public var crf: Int?
    /// Bits per second.
    public var bitrate: Int?
    /// x264's tune; nil keeps none. The live composite uses zerolatency because frames
    /// must leave at once; a re-render has the whole file, so lookahead and frame
    /// threads are allowed by default.
    public var tune: String?
    /// Overwrite the combined file (and its entry) instead of writing a render of its own
    /// beside it: the live composite is otherwise never lost to a recompose.
    public var replace = false

    public init() {}
}

/// How far a recompose has got, reported a few times a second.
public struct RecomposeProgress: Sendable {
    public var framesComposed: Int
    public var framesExpected: Int
    public var framesPerSecond: Double

    public var fraction: Double { framesExpected == 0 ? 1 : min(Double(framesComposed) / Double(framesExpected), 1) }
}

/// What a finished recompose wrote.
public struct RecomposeResult: Sendable {
    public var combinedFile: String
    public var frames: Int
    public var wallSeconds: Double
    public var layout: String
    public var filter: String
    public var pairs: Int
    public var repeats: Int
    public var noSignal: Int
}

/// Set from a signal handler or another thread; the recompose stops at its next frame,
/// leaves the combined file as it was and removes its temporary file.
public final class RecomposeCancellation: @unchecked Sendable {
    // Invariant: `cancelled` is touched only under `lock`.
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public func cancel() { lock.withLock { cancelled = true } }

    public var isCancelled: Bool { lock.withLock { cancelled } }
}
