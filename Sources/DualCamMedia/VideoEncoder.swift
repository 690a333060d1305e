import CFFmpeg
import DualCamCore
import Glibc

/// Encodes YUV420Image pictures with libavcodec (libx264 by default).
///
/// The codec runs in a time base of one frame period (1/rate) so that the stream's VUI
/// timing states the real frame rate and x264's rate control sees a regular cadence; the
/// caller's nanosecond timestamps are remembered per frame and handed back unchanged on
/// the matching packets, so jittered capture instants survive exactly.
///
/// Not thread-safe: use from one task at a time.
public final class VideoEncoder {
    public let settings: VideoEncoderSettings
    public let parameters: CodecParameters

    private let context: CodecContext
    private let frame: Frame
    private let packet: Packet
    private let codecName: String
    private let frameDurationNanoseconds: Int64
    /// Caller's nanosecond pts per codec pts (frame index), until its packet comes out.
    private var pendingTimestamps: [Int64: Int64] = [:]
    private var lastInputNanoseconds: Int64?
    private var lastCodecPts: Int64?
    private var flushed = false

    public init(settings: VideoEncoderSettings) throws {
        guard settings.width > 0, settings.height > 0, settings.width % 2 == 0, settings.height % 2 == 0 else {
            throw FFmpegError.invalid("VideoEncoder.init", "size \(settings.width)x\(settings.height) must be positive and even for 4:2:0")
        }
        guard settings.gopFrames > 0 else {
            throw FFmpegError.invalid("VideoEncoder.init", "gopFrames must be positive")
        }
        guard let codec = avcodec_find_encoder_by_name(settings.encoder) else {
            throw FFmpegError(code: dc_averror_encoder_not_found(), call: "avcodec_find_encoder_by_name",
                              detail: "encoder '\(settings.encoder)' is not available in this FFmpeg build")
        }
        let context = try CodecContext(codec: codec)
        let c = context.pointer
        c.pointee.width = Int32(settings.width)
        c.pointee.height = Int32(settings.height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = AVRational(num: Int32(clamping: settings.rate.denominator),
                                         den: Int32(clamping: settings.rate.numerator))
        c.pointee.framerate = Timestamps.rational(settings.rate)
        c.pointee.gop_size = Int32(clamping: settings.gopFrames)
        // pts == dts everywhere downstream relies on this (segments, remux, pairing).
        c.pointee.max_b_frames = 0
        c.pointee.thread_count = Int32(clamping: settings.threads)
        // Parameter sets in extradata, available right after open for muxers and the
        // protocol; keyframes still get them in-band (see receivePackets).
        c.pointee.flags |= dc_codec_flag_global_header()
        if let bitrate = settings.bitrate { c.pointee.bit_rate = Int64(bitrate) }
        if let ceiling = settings.maxBitrate {
            c.pointee.rc_max_rate = Int64(ceiling)
            c.pointee.rc_buffer_size = Int32(clamping: ceiling * 2)
        }

        var options: [(String, String)] = [("preset", settings.preset)]
        if let tune = settings.tune { options.append(("tune", tune)) }
        if let profile = settings.profile { options.append(("profile", profile)) }
        if settings.bitrate == nil, let crf = settings.crf { options.append(("crf", String(crf))) }
        // A forced keyframe must be an IDR, or a segment starting there would not decode alone.
        options.append(("forced-idr", "1"))
        // Keyframes only where we ask or at gopFrames: segment cuts stay predictable.
        switch settings.encoder {
        case "libx264": options.append(("x264-params", "scenecut=0"))
        case "libx265": options.append(("x265-params", "scenecut=0:bframes=0:log-level=warning"))
        default: break
        }
        let dictionary = OptionDictionary(options)
        // The codec starts its threads as it opens: opened on a lowered thread, they run lowered.
        let open = { avcodec_open2(c, codec, &dictionary.pointer) }
        try check(settings.threadNiceness > 0 ? ThreadNiceness.run(nice: settings.threadNiceness, open) : open(), "avcodec_open2",
                  detail: "encoder \(settings.encoder) \(settings.width)x\(settings.height)@\(settings.rate)")
        let unused = dictionary.keys
        if !unused.isEmpty {
            MediaLog.warning("encoder \(settings.encoder) ignored options: \(unused.joined(separator: ", "))")
        }

        var extradata: [UInt8] = []
        if let data = c.pointee.extradata, c.pointee.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: data, count: Int(c.pointee.extradata_size)))
        }
        let name = String(cString: avcodec_get_name(codec.pointee.id))
        self.parameters = CodecParameters(codecName: name, width: settings.width, height: settings.height,
                                          extradata: extradata, pixelFormat: "yuv420p", frameRate: settings.rate,
                                          bitRate: settings.bitrate ?? 0, profile: Int(c.pointee.profile),
                                          level: Int(c.pointee.level))
        self.codecName = name
        self.settings = settings
        self.context = context
        self.frameDurationNanoseconds = settings.rate.periodNanoseconds

        self.frame = try Frame()
        self.packet = try Packet()
    }

    /// Encodes one picture stamped `ptsNanoseconds` (strictly increasing). Returns the
    /// packets that became ready, possibly none (x264 keeps a few frames in flight unless
    /// tuned for zero latency).
    public func encode(_ image: YUV420Image, ptsNanoseconds: Int64, forceKeyframe: Bool) throws -> [EncodedPacket] {
        guard !flushed else { throw FFmpegError.invalid("VideoEncoder.encode", "encoder already flushed") }
        guard image.width == settings.width, image.height == settings.height else {
            throw FFmpegError.invalid("VideoEncoder.encode",
                                      "picture is \(image.width)x\(image.height), encoder expects \(settings.width)x\(settings.height)")
        }
        if let last = lastInputNanoseconds, ptsNanoseconds <= last {
            throw FFmpegError.invalid("VideoEncoder.encode", "pts \(ptsNanoseconds) ns not after previous \(last) ns")
        }
        // Nearest frame slot, but never reused: jittered capture times may round together.
        let c = context.pointer
        var codecPts = Timestamps.rescale(ptsNanoseconds, from: Timestamps.nanosecondBase, to: c.pointee.time_base)
        if let last = lastCodecPts, codecPts <= last { codecPts = last + 1 }

        // The encoder reads the caller's planes in place; it keeps its own reference to
        // them for as long as it needs, and ours goes when this call returns.
        defer { frame.unref() }
        try LentPicture.lend(image, to: frame.pointer)
        frame.pointer.pointee.pts = codecPts
        frame.pointer.pointee.pict_type = forceKeyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        pendingTimestamps[codecPts] = ptsNanoseconds
        lastInputNanoseconds = ptsNanoseconds
        lastCodecPts = codecPts

        try check(avcodec_send_frame(c, frame.pointer), "avcodec_send_frame", detail: "pts \(ptsNanoseconds) ns")
        return try receivePackets()
    }

    /// Drains the encoder at end of stream. The encoder accepts no pictures afterwards.
    public func flush() throws -> [EncodedPacket] {
        guard !flushed else { return [] }
        flushed = true
        try check(avcodec_send_frame(context.pointer, nil), "avcodec_send_frame", detail: "flush")
        return try receivePackets()
    }

    private func receivePackets() throws -> [EncodedPacket] {
        var output: [EncodedPacket] = []
        let timeBase = context.pointer.pointee.time_base
        while true {
            let result = avcodec_receive_packet(context.pointer, packet.pointer)
            if result == dc_averror_eagain() || result == dc_averror_eof() { break }
            try check(result, "avcodec_receive_packet")
            defer { packet.unref() }
            let p = packet.pointer.pointee
            let pts = pendingTimestamps.removeValue(forKey: p.pts)
                ?? Timestamps.nanoseconds(p.pts, in: timeBase)
            let dts = p.dts == p.pts || p.dts == dc_nopts_value()
                ? pts : pts - Timestamps.nanoseconds(p.pts - p.dts, in: timeBase)
            var data = packet.bytes
            let key = packet.isKeyframe
            if key, !AnnexB.hasParameterSets(data, codecName: codecName), AnnexB.isAnnexB(parameters.extradata) {
                data = parameters.extradata + data
            }
            output.append(EncodedPacket(data: data, ptsNanoseconds: pts, dtsNanoseconds: dts,
                                        durationNanoseconds: frameDurationNanoseconds, isKeyframe: key))
        }
        return output
    }
}
