import CFFmpeg
import Glibc

/// A sound file (WAV, FLAC, MP3, Ogg, the sound of a video: whatever libavformat opens
/// and libavcodec decodes) read from its first sample to its last, converted on the way to
/// interleaved Float at the rate and channel count the caller asks for. It streams: an
/// hour-long file costs a few blocks of memory, not its decoded size. The file's own
/// timestamps are not used: sample 0 is the first sample decoded, and every later one
/// follows it, which is what playing a file means. Not thread-safe.
public final class SoundFileReader {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// What the file holds, e.g. "pcm_s16le 22050 Hz 2 ch", for logs.
    public let formatDescription: String
    /// The file's length as its container states it, when it does.
    public let durationSeconds: Double?
    /// The sound as the file holds it, before conversion.
    public let sourceSampleRate: Int
    public let sourceChannels: Int
    /// Whether the file holds moving pictures too (a video; cover art does not count).
    public let hasPictures: Bool
    private let input: AudioInput
    private let decoder: CodecContext
    private let packet: Packet
    private let frame: Frame
    private var converter: FrameConverter?
    /// Converted samples not handed out yet.
    private var pending: [Float] = []
    private var decoderDrained = false
    private var flushed = false

    /// Opens the file and its decoder, so that a missing file, a file without sound or a
    /// codec this FFmpeg lacks is an error here, before anything is recorded.
    public init(path: String, sampleRate: Int, channels: Int) throws {
        guard sampleRate > 0, channels > 0 else {
            throw FFmpegError.invalid("SoundFileReader", path: path, "\(sampleRate) Hz \(channels) ch")
        }
        let input = try AudioInput(path: path)
        let par = input.stream.pointee.codecpar!
        let name = String(cString: avcodec_get_name(par.pointee.codec_id))
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            throw FFmpegError(code: dc_averror_decoder_not_found(), call: "avcodec_find_decoder", path: path,
                              detail: "no decoder for \(name) in this FFmpeg")
        }
        let decoder = try CodecContext(codec: codec)
        // Straight from the stream's parameters: PCM and ADPCM decoders need block_align
        // and bits_per_coded_sample, which AudioParameters does not carry.
        try check(avcodec_parameters_to_context(decoder.pointer, par), "avcodec_parameters_to_context", path: path)
        decoder.pointer.pointee.pkt_timebase = input.stream.pointee.time_base
        try check(avcodec_open2(decoder.pointer, codec, nil), "avcodec_open2", path: path, detail: "decoder \(name)")
        let stream = input.stream.pointee
        if stream.duration > 0 {
            durationSeconds = Timestamps.seconds(stream.duration, in: stream.time_base)
        } else if input.pointer.pointee.duration > 0 {
            durationSeconds = Double(input.pointer.pointee.duration) / Double(dc_av_time_base())
        } else {
            durationSeconds = nil
        }
        formatDescription = "\(name) \(par.pointee.sample_rate) Hz \(par.pointee.ch_layout.nb_channels) ch"
        sourceSampleRate = Int(par.pointee.sample_rate)
        sourceChannels = Int(par.pointee.ch_layout.nb_channels)
        hasPictures = input.hasPictures
        self.input = input
        self.decoder = decoder
        packet = try Packet()
        frame = try Frame()
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Why the file at `path` cannot be played, in a few words ("there is no such
    /// file", "it has no sound", ...); nil when it opens and this FFmpeg decodes its sound.
    public static func problem(path: String) -> String? {
        do {
            _ = try SoundFileReader(path: path, sampleRate: 48_000, channels: 1)
            return nil
        } catch let error as FFmpegError {
            switch error.posixErrno ?? 0 {
            case ENOENT: return "there is no such file"
            case EACCES: return "it cannot be read (permissions: an agent's service runs as the user dualcam)"
            case EISDIR: return "it is a folder"
            default: break
            }
            switch error.call {
            case "av_find_best_stream": return "it has no sound"
            case "avcodec_find_decoder": return error.detail ?? "this FFmpeg has no decoder for it"
            default: return "it is not a sound file FFmpeg reads (\(error.message))"
            }
        } catch {
            return "\(error)"
        }
    }

    /// The next `frames` samples per channel, interleaved; fewer only at the end of the
    /// file, and none after it.
    public func read(frames: Int) throws -> [Float] {
        let wanted = frames * channels
        while pending.count < wanted, !flushed {
            try decodeMore()
        }
        let count = min(wanted, pending.count)
        let out = Array(pending[..<count])
        pending.removeFirst(count)
        return out
    }

    /// Everything left, interleaved: for a file the caller will hold whole (an import's
    /// sound at 8 kHz for alignment).
    public func readAll() throws -> [Float] {
        var out: [Float] = []
        while true {
            let block = try read(frames: 1 << 16)
            if block.isEmpty { return out }
            out += block
        }
    }

    /// Decodes at least one frame into `pending`, or reaches the end and drains the
    /// decoder and the converter.
    private func decodeMore() throws {
        if !decoderDrained {
            if try receiveFrames() { return }
            if try input.readPacket(into: packet) {
                defer { packet.unref() }
                let sent = avcodec_send_packet(decoder.pointer, packet.pointer)
                // A damaged packet costs its few milliseconds, not the rest of the file.
                if sent != dc_averror_invaliddata() { try check(sent, "avcodec_send_packet", path: path) }
            } else {
                try check(avcodec_send_packet(decoder.pointer, nil), "avcodec_send_packet", path: path, detail: "flush")
                _ = try receiveFrames()
                decoderDrained = true
            }
            return
        }
        if let converter { pending += try converter.drain() }
        flushed = true
    }

    /// Takes every frame the decoder has ready; true when there was at least one.
    private func receiveFrames() throws -> Bool {
        var any = false
        while true {
            let result = avcodec_receive_frame(decoder.pointer, frame.pointer)
            if result == dc_averror_eagain() || result == dc_averror_eof() { return any }
            if result == dc_averror_invaliddata() { continue }
            try check(result, "avcodec_receive_frame", path: path)
            defer { frame.unref() }
            if converter == nil {
                converter = try FrameConverter(like: frame.pointer, outputRate: sampleRate, outputChannels: channels, path: path)
            }
            pending += try converter!.convert(frame.pointer)
            any = true
        }
    }
}

/// The demuxer side: the file opened and its best audio stream chosen. Apart from
/// `InputFormatContext`, which is built around a video stream that a sound file lacks.
private final class AudioInput {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let stream: UnsafeMutablePointer<AVStream>
    let streamIndex: Int32
    let path: String
    let hasPictures: Bool

    init(path: String) throws {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        // On failure avformat_open_input frees the context itself.
        try check(avformat_open_input(&context, path, nil, nil), "avformat_open_input", path: path)
        guard let opened = context else { throw FFmpegError(code: dc_averror(ENOMEM), call: "avformat_open_input", path: path) }
        let info = avformat_find_stream_info(opened, nil)
        let index = info < 0 ? info : av_find_best_stream(opened, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0 else {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = opened
            avformat_close_input(&doomed)
            if info < 0 { throw FFmpegError(code: info, call: "avformat_find_stream_info", path: path) }
            throw FFmpegError(code: index, call: "av_find_best_stream", path: path, detail: "the file has no sound")
        }
        // The other streams (a video's pictures, cover art) are not even parsed.
        var pictures = false
        for i in 0..<Int(opened.pointee.nb_streams) where i != Int(index) {
            let stream = opened.pointee.streams[i]!
            if stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
               stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 { pictures = true }
            stream.pointee.discard = AVDISCARD_ALL
        }
        hasPictures = pictures
        pointer = opened
        streamIndex = index
        stream = opened.pointee.streams[Int(index)]!
        self.path = path
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }

    /// The next packet of the sound stream into `packet`; false at the end of the file.
    func readPacket(into packet: Packet) throws -> Bool {
        while try packet.read(from: pointer, path: path) {
            if packet.pointer.pointee.stream_index == streamIndex { return true }
        }
        return false
    }
}

/// libswresample from whatever the decoder puts out (any sample format, planar or not,
/// any layout and rate) to interleaved Float at the rate and channel count asked for.
private final class FrameConverter {
    private var context: OpaquePointer?
    private let outputChannels: Int
    private let outputRate: Int
    private let inputRate: Int
    private let path: String

    init(like frame: UnsafeMutablePointer<AVFrame>, outputRate: Int, outputChannels: Int, path: String) throws {
        var outLayout = AVChannelLayout()
        var inLayout = AVChannelLayout()
        dc_default_channel_layout(&outLayout, Int32(outputChannels))
        // A file that names no speaker positions gets the usual ones for its count.
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            dc_default_channel_layout(&inLayout, frame.pointee.ch_layout.nb_channels)
        } else {
            try check(av_channel_layout_copy(&inLayout, &frame.pointee.ch_layout), "av_channel_layout_copy", path: path)
        }
        defer {
            av_channel_layout_uninit(&outLayout)
            av_channel_layout_uninit(&inLayout)
        }
        inputRate = Int(frame.pointee.sample_rate)
        let detail = "\(inputRate) → \(outputRate) Hz, \(inLayout.nb_channels) → \(outputChannels) ch"
        var swr: OpaquePointer?
        try check(swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLT, Int32(outputRate),
                                      &inLayout, AVSampleFormat(rawValue: frame.pointee.format), frame.pointee.sample_rate, 0, nil),
                  "swr_alloc_set_opts2", path: path, detail: detail)
        // A downmix averages the channels instead of summing them at −3 dB each, which
        // can clip a loud stereo file.
        av_opt_set_double(UnsafeMutableRawPointer(swr), "rematrix_maxval", 1.0, 0)
        let result = swr_init(swr)
        if result < 0 {
            swr_free(&swr)
            throw FFmpegError(code: result, call: "swr_init", path: path, detail: detail)
        }
        context = swr
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        self.path = path
    }

    deinit { swr_free(&context) }

    func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> [Float] {
        guard Int(frame.pointee.sample_rate) == inputRate else {
            throw FFmpegError.invalid("SoundFileReader", path: path,
                                      "the sound changes rate mid-file (\(inputRate) → \(frame.pointee.sample_rate) Hz)")
        }
        let count = Int(frame.pointee.nb_samples)
        let input = UnsafeMutableRawPointer(frame.pointee.extended_data!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        return try run(input: input, count: count)
    }

    /// What the filter still holds once the input has ended.
    func drain() throws -> [Float] {
        var out: [Float] = []
        while true {
            let more = try run(input: nil, count: 0)
            if more.isEmpty { return out }
            out += more
        }
    }

    private func run(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) throws -> [Float] {
        let capacity = count * outputRate / max(inputRate, 1) + 256
        var output = [Float](repeating: 0, count: capacity * outputChannels)
        let made = try output.withUnsafeMutableBufferPointer { target in
            var plane: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(target.baseAddress!).assumingMemoryBound(to: UInt8.self)
            return try check(swr_convert(context, &plane, Int32(capacity), input, Int32(count)), "swr_convert", path: path)
        }
        output.removeLast((capacity - Int(made)) * outputChannels)
        return output
    }
}
