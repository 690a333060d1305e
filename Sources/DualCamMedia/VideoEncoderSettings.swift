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
    /// A ceiling on the bitrate (VBV, its buffer two seconds of it), as streaming
    /// platforms want beside constant quality; nil: none.
    public var maxBitrate: Int? = nil
    /// Encoder threads, 0 for libavcodec's choice.
    public var threads: Int
    /// An H.264 profile ("baseline" for browsers' decoders), nil for the encoder's own.
    public var profile: String?
    /// How far below the opening thread the encoder's own threads run (nice, 0-19; 0:
    /// as it). Work that may wait (the live composite) yields the CPU to work that may not.
    public var threadNiceness: Int32 = 0

    /// The encoders DualCam records with: software H.264 and H.265, and the Pi 4's
    /// hardware H.264 block.
    public static let encoders = ["libx264", "libx265", "h264_v4l2m2m"]
    /// x264's and x265's speed presets, fastest first (the hardware encoder has none).
    /// Written once: `auto`'s ladder (the core's), then the slow ones it never picks.
    public static let presets = PresetChoice.ladder + ["slow", "slower", "veryslow", "placebo"]

    /// The preset a node chooses for itself by measuring (`--preset auto`), not an
    /// encoder's own: resolved to one of `presets` before any encoder opens.
    public static let automaticPreset = "auto"

    /// Why `encoder` with `preset` cannot be opened, worded for a command line; nil when
    /// they can. Checked before anything is recorded, so a typo costs no session.
    public static func problem(encoder: String, preset: String?) -> String? {
        guard encoders.contains(encoder) else {
            return "--encoder must be one of \(encoders.joined(separator: ", ")), not '\(encoder)'"
        }
        if let preset, preset != automaticPreset, encoder != "h264_v4l2m2m", !presets.contains(preset) {
            return "--preset for \(encoder) must be auto or one of \(presets.joined(separator: ", ")), not '\(preset)'"
        }
        return nil
    }

    /// A live preview (PROTOCOL.md §16): x264's fastest preset, constrained baseline for
    /// browsers' WebCodecs decoders, one frame in and one out (zerolatency), a key frame
    /// every second, one thread so it never competes with the recording's encoder threads.
    public static func preview(width: Int, height: Int, fps: Int, bitrate: Int) -> VideoEncoderSettings {
        VideoEncoderSettings(encoder: "libx264", width: width, height: height, rate: FrameRate(Int64(fps), 1),
                             preset: "ultrafast", tune: "zerolatency", crf: nil, bitrate: bitrate, gopFrames: fps,
                             threads: 1, profile: "baseline")
    }

    /// A hardware encoder, which may be missing on this board: its failure to open falls
    /// back to software rather than failing the recording.
    public var isHardware: Bool { encoder.hasSuffix("_v4l2m2m") }

    public init(encoder: String = "libx264", width: Int, height: Int, rate: FrameRate,
                preset: String = "veryfast", tune: String? = "zerolatency", crf: Int? = 23,
                bitrate: Int? = nil, gopFrames: Int, threads: Int = 0, profile: String? = nil) {
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
        self.profile = profile
    }
}
