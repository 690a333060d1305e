/// Where a file sits on the session's timeline, in whole frames of the session's rate:
/// its first frame at the frame nearest to its presentation time (frames are on T0's grid
/// when genlocked, within half a frame of it when free-running), its length from its first
/// frame to the end of its last, gaps included.
public struct ClipPlacement: Sendable, Hashable {
    public var startFrame: Int64
    public var durationFrames: Int64

    public init(startFrame: Int64, durationFrames: Int64) {
        self.startFrame = startFrame
        self.durationFrames = durationFrames
    }

    /// `first` and `end` in nanoseconds from T0: the first frame's presentation time and
    /// the end of the last frame.
    public init(firstNanoseconds first: Int64, endNanoseconds end: Int64, rate: FrameRate) {
        let grid = GenlockGrid(rate: rate)
        let start = grid.nearestFrameIndex(to: first)
        startFrame = start
        durationFrames = max(grid.nearestFrameIndex(to: end) - start, 0)
    }
}
