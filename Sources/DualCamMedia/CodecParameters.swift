import CFFmpeg
import DualCamCore

/// What a muxer or decoder needs to know about an encoded video stream, as plain values so
/// it can cross actors and the wire. `extradata` is in whatever form the source produced
/// (Annex B SPS/PPS from x264 and from the TS demuxer, avcC from MP4); libavformat and
/// libavcodec accept either for H.264 and H.265.
public struct CodecParameters: Sendable, Equatable {
    /// libavcodec codec name: "h264", "hevc", ...
    public var codecName: String
    public var width: Int
    public var height: Int
    public var extradata: [UInt8]
    /// libavutil pixel format name of the decoded pictures ("yuv420p"), when known.
    public var pixelFormat: String?
    /// Nominal rate, used to give the last packet of a remuxed file its duration.
    public var frameRate: FrameRate?
    /// Average bitrate in bits per second, 0 when unknown.
    public var bitRate: Int
    /// Codec profile and level as libavcodec numbers; -99 (FF_PROFILE_UNKNOWN/FF_LEVEL_UNKNOWN) when unknown.
    public var profile: Int
    public var level: Int

    public init(codecName: String, width: Int, height: Int, extradata: [UInt8] = [],
                pixelFormat: String? = "yuv420p", frameRate: FrameRate? = nil, bitRate: Int = 0,
                profile: Int = -99, level: Int = -99) {
        self.codecName = codecName
        self.width = width
        self.height = height
        self.extradata = extradata
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
        self.bitRate = bitRate
        self.profile = profile
        self.level = level
    }
}

extension CodecParameters {
    /// Reads a stream's parameters; `rate` comes from the stream since AVCodecParameters
    /// has no frame rate in FFmpeg 5.
    init(_ par: UnsafePointer<AVCodecParameters>, rate: AVRational?) {
        let name = String(cString: avcodec_get_name(par.pointee.codec_id))
        let extra = Extradata.read(par)
        var formatName: String?
        if par.pointee.format >= 0, let cName = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.pointee.format)) {
            formatName = String(cString: cName)
        }
        var frameRate: FrameRate?
        if let rate, rate.num > 0, rate.den > 0 { frameRate = FrameRate(Int64(rate.num), Int64(rate.den)) }
        self.init(codecName: name, width: Int(par.pointee.width), height: Int(par.pointee.height),
                  extradata: extra, pixelFormat: formatName, frameRate: frameRate,
                  bitRate: Int(par.pointee.bit_rate), profile: Int(par.pointee.profile),
                  level: Int(par.pointee.level))
    }

    /// The libavcodec id for `codecName`; throws for names libavcodec does not know.
    func codecID(path: String? = nil) throws -> AVCodecID {
        guard let descriptor = avcodec_descriptor_get_by_name(codecName) else {
            throw FFmpegError(code: dc_averror_decoder_not_found(), call: "avcodec_descriptor_get_by_name",
                              path: path, detail: "unknown codec '\(codecName)'")
        }
        return descriptor.pointee.id
    }

    /// Fills a (fresh, zeroed) AVCodecParameters for a muxer or decoder.
    func write(to par: UnsafeMutablePointer<AVCodecParameters>, path: String? = nil) throws {
        par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        par.pointee.codec_id = try codecID(path: path)
        par.pointee.width = Int32(width)
        par.pointee.height = Int32(height)
        par.pointee.bit_rate = Int64(bitRate)
        par.pointee.profile = Int32(profile)
        par.pointee.level = Int32(level)
        if let pixelFormat {
            par.pointee.format = av_get_pix_fmt(pixelFormat).rawValue
        }
        try Extradata.write(extradata, to: par, path: path)
    }
}
