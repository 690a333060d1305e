import DualCamCore

/// How to encode one camera's pictures. Defaults are tuned for real-time capture on small
/// machines: x264 veryfast, zero-latency (no lookahead, no frame threads' delay), CRF 23.
public struct VideoEncoderSettings: Sendable, Equatable {
    /// libavcodec encoder name: "libx264", "libx265", "h264_v4l2m2m", ...
    public var encoder: String
    public var width: Int
    public var height: Int
    public var rate: FrameRate
    public var preset: String
    public var tune: String?
    /// Constant-quality mode; ignored when `bitrate` is set.
    public var crf: Int?
    /// Average bitrate in bits per second; when set it wins over `crf`.
    public var bitrate: Int?
    /// Maximum keyframe interval in frames; segments also force keyframes where they cut.
    public var gopFrames: Int
    /// Encoder threads, 0 for libavcodec's choice.
    public var threads: Int

    public init(encoder: String = "libx264", width: Int, height: Int, rate: FrameRate,
                preset: String = "veryfast", tune: String? = "zerolatency", crf: Int? = 23,
                bitrate: Int? = nil, gopFrames: Int, threads: Int = 0) {
        self.encoder = encoder
        self.width = width
        self.height = height
        self.rate = rate
        self.preset = preset
        self.tune = tune
        self.crf = crf
        self.bitrate = bitrate
        self.gopFrames = gopFrames
        self.threads = threads
    }
}
