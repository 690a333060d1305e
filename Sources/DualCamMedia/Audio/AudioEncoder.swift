import CFFmpeg
import Glibc

/// Encodes interleaved Float samples to AAC with libavcodec's native encoder.
///
/// The stream is continuous: sample n (per channel) of everything written is at
/// `startPosition + n` in units of 1/sampleRate, so the caller states position once and
/// fills gaps with silence. Packets come out stamped by libavcodec, which puts the first
/// (priming) packet 1024 samples before the start so that decoded samples land at the
/// instants they were written for; callers that cannot store a time before zero drop
/// packets with a negative pts. Not thread-safe.
public final class AudioEncoder {
    public let parameters: AudioParameters
    public let sampleRate: Int
    public let channels: Int
    private let context: CodecContext
    private let frame: Frame
    private let packet: Packet
    private let frameSize: Int
    /// Interleaved samples not yet making up a whole codec frame.
    private var pending: [Float] = []
    private var nextFramePosition: Int64
    private var flushed = false

    public init(sampleRate: Int, channels: Int, bitRate: Int = 128_000, startPosition: Int64 = 0) throws {
        guard (1...2).contains(channels), sampleRate > 0 else {
            throw FFmpegError.invalid("AudioEncoder.init", "\(channels) channels at \(sampleRate) Hz: 1 or 2 channels, positive rate")
        }
        guard let codec = avcodec_find_encoder_by_name("aac") else {
            throw FFmpegError(code: dc_averror_encoder_not_found(), call: "avcodec_find_encoder_by_name",
                              detail: "encoder 'aac' is not available in this FFmpeg build")
        }
        let context = try CodecContext(codec: codec)
        let c = context.pointer
        c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        c.pointee.sample_rate = Int32(sampleRate)
        dc_default_channel_layout(&c.pointee.ch_layout, Int32(channels))
        c.pointee.bit_rate = Int64(bitRate)
        c.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        // AudioSpecificConfig in extradata: the TS muxer writes ADTS headers from it and
        // the MP4 muxer stores it in the sample entry.
        c.pointee.flags |= dc_codec_flag_global_header()
        try check(avcodec_open2(c, codec, nil), "avcodec_open2", detail: "aac \(sampleRate) Hz \(channels) ch")
        frameSize = Int(c.pointee.frame_size)
        var extradata: [UInt8] = []
        if let data = c.pointee.extradata, c.pointee.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: data, count: Int(c.pointee.extradata_size)))
        }
        parameters = AudioParameters(codecName: "aac", sampleRate: sampleRate, channels: channels,
                                     extradata: extradata, bitRate: bitRate, frameSize: frameSize)
        self.sampleRate = sampleRate
        self.channels = channels
        self.context = context
        self.nextFramePosition = startPosition
        frame = try Frame()
        packet = try Packet()
    }

    /// Samples per channel handed over so far, counted from position 0 of the stream.
    public var position: Int64 { nextFramePosition + Int64(pending.count / channels) }

    /// Appends interleaved samples (a multiple of `channels`) and returns the packets ready.
    public func encode(_ samples: [Float]) throws -> [EncodedPacket] {
        guard !flushed else { throw FFmpegError.invalid("AudioEncoder.encode", "encoder already flushed") }
        pending += samples
        var output: [EncodedPacket] = []
        let whole = frameSize * channels
        var used = 0
        while pending.count - used >= whole {
            output += try send(pending, from: used, count: frameSize)
            used += whole
        }
        pending.removeFirst(used)
        return output
    }

    /// Encodes what is left (a short last frame) and drains the encoder.
    public func flush() throws -> [EncodedPacket] {
        guard !flushed else { return [] }
        var output: [EncodedPacket] = []
        if !pending.isEmpty { output += try send(pending, from: 0, count: pending.count / channels) }
        pending = []
        flushed = true
        try check(avcodec_send_frame(context.pointer, nil), "avcodec_send_frame", detail: "flush")
        return output + (try receive())
    }

    private func send(_ samples: [Float], from start: Int, count: Int) throws -> [EncodedPacket] {
        let f = frame.pointer
        frame.unref()
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.sample_rate = Int32(sampleRate)
        f.pointee.nb_samples = Int32(count)
        dc_default_channel_layout(&f.pointee.ch_layout, Int32(channels))
        try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer", detail: "\(count) audio samples")
        // Interleaved in, planar out: the one copy the codec's input format requires.
        samples.withUnsafeBufferPointer { source in
            for ch in 0..<channels {
                let plane = f.pointee.extended_data[ch]!.withMemoryRebound(to: Float.self, capacity: count) { $0 }
                for i in 0..<count { plane[i] = source[start + i * channels + ch] }
            }
        }
        f.pointee.pts = nextFramePosition
        nextFramePosition += Int64(count)
        try check(avcodec_send_frame(context.pointer, f), "avcodec_send_frame", detail: "audio pts \(f.pointee.pts)")
        return try receive()
    }

    private func receive() throws -> [EncodedPacket] {
        var output: [EncodedPacket] = []
        let base = context.pointer.pointee.time_base
        while true {
            let result = avcodec_receive_packet(context.pointer, packet.pointer)
            if result == dc_averror_eagain() || result == dc_averror_eof() { break }
            try check(result, "avcodec_receive_packet", detail: "aac")
            defer { packet.unref() }
            let p = packet.pointer.pointee
            let pts = Timestamps.nanoseconds(p.pts, in: base)
            output.append(EncodedPacket(data: packet.bytes, ptsNanoseconds: pts,
                                        dtsNanoseconds: p.dts == dc_nopts_value() ? pts : Timestamps.nanoseconds(p.dts, in: base),
                                        durationNanoseconds: Timestamps.nanoseconds(p.duration > 0 ? p.duration : Int64(frameSize), in: base),
                                        isKeyframe: true))
        }
        return output
    }
}
