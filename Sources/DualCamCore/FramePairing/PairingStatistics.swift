/// A summary of absolute errors in nanoseconds.
public struct ErrorDistribution: Sendable, Hashable {
    public var count: Int
    public var meanNanoseconds: Double
    /// Percentiles to the histogram's resolution (1 µs below 1 ms, 50 µs above), rounded
    /// up so that they never understate, and never above the maximum.
    public var p50Nanoseconds: Int64
    public var p99Nanoseconds: Int64
    public var maxNanoseconds: Int64

    public static let empty = ErrorDistribution(count: 0, meanNanoseconds: 0, p50Nanoseconds: 0,
                                                p99Nanoseconds: 0, maxNanoseconds: 0)

    public init(count: Int, meanNanoseconds: Double, p50Nanoseconds: Int64, p99Nanoseconds: Int64, maxNanoseconds: Int64) {
        self.count = count
        self.meanNanoseconds = meanNanoseconds
        self.p50Nanoseconds = p50Nanoseconds
        self.p99Nanoseconds = p99Nanoseconds
        self.maxNanoseconds = maxNanoseconds
    }
}

/// One input stream's share of a session.
public struct StreamPairingStatistics: Sendable, Hashable {
    public var framesReceived = 0
    /// Frames shown on a tick of their own.
    public var framesUsed = 0
    /// Frames never shown: late, before the start or after the end, or beaten to their
    /// tick by a nearer frame.
    public var droppedFrames = 0
    public var repeats = 0
    public var noSignal = 0

    public init() {}
}

/// What a `FramePairer` did over a session, for the manifest.
public struct PairingStatistics: Sendable, Hashable {
    public var ticks = 0
    /// Ticks where every stream had a frame of its own.
    public var pairs = 0
    public var repeats = 0
    public var noSignal = 0
    public var droppedFrames = 0
    public var streams: [StreamPairingStatistics]
    /// |frame time − the instant its tick shows| over every fresh frame shown (the tick's
    /// time plus the grid's offset, `OutputTick.gridOffsetNanoseconds`).
    public var frameError: ErrorDistribution
    /// On pair ticks, latest minus earliest presentation time among the streams' frames:
    /// how far apart in time the halves of the composite were.
    public var pairSpread: ErrorDistribution
    /// Each camera's phase against the grid, and each pair's distance in the picture.
    public var phase: FramePhase

    public init(streamCount: Int) {
        streams = Array(repeating: StreamPairingStatistics(), count: streamCount)
        frameError = .empty
        pairSpread = .empty
        phase = FramePhase(periodNanoseconds: 0, cameras: [], pairs: [])
    }
}
