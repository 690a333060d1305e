/// What a media file holds, as the end-to-end tests and the session manifest check it.
public struct ProbeResult: Sendable, Equatable {
    public var formatName: String
    public var codecName: String
    public var width: Int
    public var height: Int
    public var frameCount: Int
    /// The container's duration (for MP4: including an initial offset from the edit list).
    public var durationSeconds: Double
    /// Every video packet's pts in presentation order.
    public var frameTimestampsSeconds: [Double]
    /// The same, exact in nanoseconds (rounded from the file's time base).
    public var frameTimestampsNanoseconds: [Int64]
    public var keyframeCount: Int
    /// The `creation_time` metadata as stored, if any.
    public var creationTime: String?
    /// The start timecode its timecode track holds (the video stream's `timecode`), if any.
    public var timecode: String? = nil
    /// The sound track's format, when the file has one.
    public var audio: AudioParameters? = nil

    public init(formatName: String, codecName: String, width: Int, height: Int, frameCount: Int,
                durationSeconds: Double, frameTimestampsSeconds: [Double], frameTimestampsNanoseconds: [Int64],
                keyframeCount: Int, creationTime: String?) {
        self.formatName = formatName
        self.codecName = codecName
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.durationSeconds = durationSeconds
        self.frameTimestampsSeconds = frameTimestampsSeconds
        self.frameTimestampsNanoseconds = frameTimestampsNanoseconds
        self.keyframeCount = keyframeCount
        self.creationTime = creationTime
    }
}
