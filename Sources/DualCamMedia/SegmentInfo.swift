/// What a finished segment holds, for the spool manifest and upload bookkeeping.
public struct SegmentInfo: Sendable, Equatable {
    public var byteCount: Int
    public var frameCount: Int
    public var firstPtsNanoseconds: Int64
    public var lastPtsNanoseconds: Int64
    /// Last pts + last frame's duration - first pts (0 for an empty segment).
    public var durationNanoseconds: Int64

    public init(byteCount: Int, frameCount: Int, firstPtsNanoseconds: Int64,
                lastPtsNanoseconds: Int64, durationNanoseconds: Int64) {
        self.byteCount = byteCount
        self.frameCount = frameCount
        self.firstPtsNanoseconds = firstPtsNanoseconds
        self.lastPtsNanoseconds = lastPtsNanoseconds
        self.durationNanoseconds = durationNanoseconds
    }
}
