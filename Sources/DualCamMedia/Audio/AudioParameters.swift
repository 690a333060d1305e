import CFFmpeg

/// What a muxer or decoder needs to know about an encoded audio stream, as plain values
/// so it can cross threads and the wire (the video side is `CodecParameters`).
public struct AudioParameters: Sendable, Equatable {
    /// libavcodec codec name: "aac".
    public var codecName: String
    public var sampleRate: Int
    public var channels: Int
    /// AudioSpecificConfig for AAC; empty when the stream carries ADTS headers in-band.
    public var extradata: [UInt8]
    public var bitRate: Int
    /// Samples per channel in one packet (1024 for AAC).
    public var frameSize: Int
    /// Bits per sample of an uncompressed stream (16 or 24), 0 for a compressed one.
    public var bitsPerSample: Int = 0

    public init(codecName: String, sampleRate: Int, channels: Int, extradata: [UInt8] = [],
                bitRate: Int = 0, frameSize: Int = 1024) {
        self.codecName = codecName
        self.sampleRate = sampleRate
        self.channels = channels
        self.extradata = extradata
        self.bitRate = bitRate
        self.frameSize = frameSize
    }
}

extension AudioParameters {
    init(_ par: UnsafePointer<AVCodecParameters>) {
        let extra = Extradata.read(par)
        self.init(codecName: String(cString: avcodec_get_name(par.pointee.codec_id)),
                  sampleRate: Int(par.pointee.sample_rate), channels: Int(par.pointee.ch_layout.nb_channels),
                  extradata: extra, bitRate: Int(par.pointee.bit_rate),
                  frameSize: par.pointee.frame_size > 0 ? Int(par.pointee.frame_size) : 1024)
        bitsPerSample = Int(par.pointee.bits_per_raw_sample)
    }

    func write(to par: UnsafeMutablePointer<AVCodecParameters>, path: String? = nil) throws {
        guard let descriptor = avcodec_descriptor_get_by_name(codecName) else {
            throw FFmpegError(code: dc_averror_decoder_not_found(), call: "avcodec_descriptor_get_by_name",
                              path: path, detail: "unknown codec '\(codecName)'")
        }
        par.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        par.pointee.codec_id = descriptor.pointee.id
        par.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_uninit(&par.pointee.ch_layout)
        dc_default_channel_layout(&par.pointee.ch_layout, Int32(channels))
        par.pointee.bit_rate = Int64(bitRate)
        par.pointee.frame_size = Int32(frameSize)
        par.pointee.bits_per_raw_sample = Int32(bitsPerSample)
        try Extradata.write(extradata, to: par, path: path)
    }

    /// The stream's time base: one sample.
    var timeBase: AVRational { AVRational(num: 1, den: Int32(sampleRate)) }
}
