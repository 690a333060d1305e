import CFFmpeg
import Glibc

/// What a sound track is encoded as.
public enum AudioCodecChoice: Sendable, Equatable {
    /// AAC-LC through libavcodec's native encoder: what every file carries.
    case aac(bitRate: Int)
    /// SMPTE 302M: uncompressed PCM in a form MPEG-TS carries, so a segment can hold the
    /// node's lossless sound beside the AAC. 48 kHz only, channels in pairs (mono is
    /// stored twice), 16 or 24 bits.
    case smpte302m(bits: Int)
}

/// Encodes interleaved Float samples with libavcodec: AAC, or SMPTE 302M PCM.
///
/// The stream is continuous: sample n (per channel) of everything written is at
/// `startPosition + n` in units of 1/sampleRate, so the caller states position once and
/// fills gaps with silence. Packets come out stamped by libavcodec, which puts the first
/// (priming) packet 1024 samples before the start so that decoded samples land at the
/// instants they were written for; callers that cannot store a time before zero drop
/// packets with a negative pts. Not thread-safe.
public final class AudioEncoder {
    public private(set) var parameters: AudioParameters
    public let sampleRate: Int
    public let channels: Int
    private let context: CodecContext
    private let frame: Frame
    private let packet: Packet
    private let frameSize: Int
    private let sampleFormat: AVSampleFormat
    /// Channels as coded: more than given when 302M stores mono as a pair.
    private let codedChannels: Int
    /// Interleaved samples not yet making up a whole codec frame.
    private var pending: [Float] = []
    private var nextFramePosition: Int64
    private var flushed = false

    public convenience init(sampleRate: Int, channels: Int, bitRate: Int = 128_000, startPosition: Int64 = 0) throws {
        try self.init(codec: .aac(bitRate: bitRate), sampleRate: sampleRate, channels: channels, startPosition: startPosition)
    }

    public init(codec choice: AudioCodecChoice, sampleRate: Int, channels: Int, startPosition: Int64 = 0) throws {
        guard (1...2).contains(channels), sampleRate > 0 else {
            throw FFmpegError.invalid("AudioEncoder.init", "\(channels) channels at \(sampleRate) Hz: 1 or 2 channels, positive rate")
        }
        var name = "aac", format = AV_SAMPLE_FMT_FLTP, coded = channels, bitRate = 0, rawBits: Int32 = 0
        switch choice {
        case .aac(let rate): bitRate = rate
        case .smpte302m(let bits):
            guard sampleRate == 48_000, bits == 16 || bits == 24 else {
                throw FFmpegError.invalid("AudioEncoder.init", "SMPTE 302M takes 48 kHz at 16 or 24 bits, not \(sampleRate) Hz \(bits)-bit")
            }
            name = "s302m"
            format = bits == 16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32
            coded = 2
            rawBits = Int32(bits)
        }
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(code: dc_averror_encoder_not_found(), call: "avcodec_find_encoder_by_name",
                              detail: "encoder '\(name)' is not available in this FFmpeg build")
        }
        let context = try CodecContext(codec: codec)
        let c = context.pointer
        c.pointee.sample_fmt = format
        c.pointee.sample_rate = Int32(sampleRate)
        dc_default_channel_layout(&c.pointee.ch_layout, Int32(coded))
        c.pointee.bit_rate = Int64(bitRate)
        c.pointee.bits_per_raw_sample = rawBits
        c.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        // libavcodec calls its 302M encoder experimental; the format is a fixed PCM layout.
        c.pointee.strict_std_compliance = -2
        // AudioSpecificConfig in extradata: the TS muxer writes ADTS headers from it and
        // the MP4 muxer stores it in the sample entry.
        c.pointee.flags |= dc_codec_flag_global_header()
        try check(avcodec_open2(c, codec, nil), "avcodec_open2", detail: "\(name) \(sampleRate) Hz \(coded) ch")
        frameSize = c.pointee.frame_size > 0 ? Int(c.pointee.frame_size) : 1024
        sampleFormat = format
        codedChannels = coded
        var extradata: [UInt8] = []
        if let data = c.pointee.extradata, c.pointee.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: data, count: Int(c.pointee.extradata_size)))
        }
        parameters = AudioParameters(codecName: name, sampleRate: sampleRate, channels: coded,
                                     extradata: extradata, bitRate: bitRate, frameSize: frameSize)
        parameters.bitsPerSample = Int(rawBits)
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
        f.pointee.format = sampleFormat.rawValue
        f.pointee.sample_rate = Int32(sampleRate)
        f.pointee.nb_samples = Int32(count)
        dc_default_channel_layout(&f.pointee.ch_layout, Int32(codedChannels))
        try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer", detail: "\(count) audio samples")
        // The one copy the codec's input format requires: planar float for AAC,
        // interleaved integers for PCM. Plain loops over raw pointers: this runs for
        // every sample, twice, and must stay cheap even in a debug build.
        let (channels, coded) = (self.channels, codedChannels)
        samples.withUnsafeBufferPointer { buffer in
            let source = buffer.baseAddress! + start
            switch sampleFormat {
            case AV_SAMPLE_FMT_S16:
                let out = f.pointee.extended_data[0]!.withMemoryRebound(to: Int16.self, capacity: count * coded) { $0 }
                for i in 0..<count {
                    for ch in 0..<coded {
                        let x = Self.clip(source[i * channels + min(ch, channels - 1)] * 32768, 32767)
                        out[i * coded + ch] = Int16(x.rounded())
                    }
                }
            case AV_SAMPLE_FMT_S32:
                let out = f.pointee.extended_data[0]!.withMemoryRebound(to: Int32.self, capacity: count * coded) { $0 }
                for i in 0..<count {
                    for ch in 0..<coded {
                        let x = Self.clip(source[i * channels + min(ch, channels - 1)] * 8_388_608, 8_388_607)
                        out[i * coded + ch] = Int32(x.rounded()) << 8
                    }
                }
            default:
                for ch in 0..<coded {
                    let plane = f.pointee.extended_data[ch]!.withMemoryRebound(to: Float.self, capacity: count) { $0 }
                    for i in 0..<count { plane[i] = source[i * channels + ch] }
                }
            }
        }
        f.pointee.pts = nextFramePosition
        nextFramePosition += Int64(count)
        try check(avcodec_send_frame(context.pointer, f), "avcodec_send_frame", detail: "audio pts \(f.pointee.pts)")
        return try receive()
    }

    /// `x` limited to −(top + 1)…top, the range of a signed integer sample.
    @inline(__always)
    private static func clip(_ x: Float, _ top: Float) -> Float {
        x > top ? top : (x < -top - 1 ? -top - 1 : x)
    }

    private func receive() throws -> [EncodedPacket] {
        var output: [EncodedPacket] = []
        let base = context.pointer.pointee.time_base
        while true {
            let result = avcodec_receive_packet(context.pointer, packet.pointer)
            if result == dc_averror_eagain() || result == dc_averror_eof() { break }
            try check(result, "avcodec_receive_packet", detail: "audio")
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
