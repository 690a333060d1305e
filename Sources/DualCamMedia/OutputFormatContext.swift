import CFFmpeg
import Glibc

/// Owns one muxing AVFormatContext and its output file. Lifecycle: add streams, write the
/// header, write packets, `finish()` (trailer, close, fsync). Dropped without `finish()`,
/// it closes the file without a trailer, which leaves a partial file for the caller to
/// discard.
final class OutputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String
    private(set) var headerWritten = false
    private(set) var finished = false
    /// A network destination's limit on blocking (its interrupt callback points here).
    let deadline: NetworkDeadline?

    init(path: String, formatName: String) throws {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&context, nil, formatName, path),
                  "avformat_alloc_output_context2", path: path, detail: "format \(formatName)")
        guard let allocated = context else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avformat_alloc_output_context2", path: path)
        }
        let openResult = avio_open(&allocated.pointee.pb, path, AVIO_FLAG_WRITE)
        if openResult < 0 {
            avformat_free_context(allocated)
            throw FFmpegError(code: openResult, call: "avio_open", path: path)
        }
        self.pointer = allocated
        self.path = path
        deadline = nil
    }

    /// A network destination (`rtmp://`, `srt://`): opened with the protocol's options
    /// and `deadline`'s interrupt callback, so that a dead peer fails a call instead of
    /// blocking it for good (the caller sets the deadline around each call, this open
    /// too); `shownAs` is what errors name, the URL with its secret masked.
    init(url: String, shownAs: String, formatName: String, ioOptions: [(String, String)], deadline: NetworkDeadline) throws {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&context, nil, formatName, nil),
                  "avformat_alloc_output_context2", path: shownAs, detail: "format \(formatName)")
        guard let allocated = context else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avformat_alloc_output_context2", path: shownAs)
        }
        let dictionary = OptionDictionary(ioOptions)
        var interrupt = deadline.callback
        allocated.pointee.interrupt_callback = interrupt
        let openResult = avio_open2(&allocated.pointee.pb, url, AVIO_FLAG_WRITE, &interrupt, &dictionary.pointer)
        if openResult < 0 {
            avformat_free_context(allocated)
            throw FFmpegError(code: openResult, call: "avio_open2", path: shownAs)
        }
        self.pointer = allocated
        self.path = shownAs
        self.deadline = deadline
    }

    deinit {
        if pointer.pointee.pb != nil { avio_closep(&pointer.pointee.pb) }
        avformat_free_context(pointer)
    }

    func addVideoStream(_ parameters: CodecParameters, timeBase: AVRational) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(pointer, nil) else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avformat_new_stream", path: path)
        }
        try parameters.write(to: stream.pointee.codecpar, path: path)
        // Muxers that store a codec tag pick their own; a tag from elsewhere would be wrong.
        // H.265 in MP4 gets 'hvc1' (parameter sets in the sample entry), which Apple's
        // players require; the mp4 muxer's default, 'hev1', they refuse to play.
        let hevc = stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC
        stream.pointee.codecpar.pointee.codec_tag = hevc ? Self.fourCC("hvc1") : 0
        stream.pointee.time_base = timeBase
        if let rate = parameters.frameRate {
            stream.pointee.avg_frame_rate = Timestamps.rational(rate)
            stream.pointee.r_frame_rate = Timestamps.rational(rate)
        }
        return stream
    }

    func addAudioStream(_ parameters: AudioParameters, timeBase: AVRational) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(pointer, nil) else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avformat_new_stream", path: path)
        }
        try parameters.write(to: stream.pointee.codecpar, path: path)
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = timeBase
        return stream
    }

    private static func fourCC(_ text: StaticString) -> UInt32 {
        let b = text.utf8Start
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    func setMetadata(_ key: String, _ value: String) {
        av_dict_set(&pointer.pointee.metadata, key, value, 0)
    }

    func setMetadata(_ key: String, _ value: String, stream: UnsafeMutablePointer<AVStream>) {
        av_dict_set(&stream.pointee.metadata, key, value, 0)
    }

    func writeHeader(options: [(String, String)]) throws {
        let dictionary = OptionDictionary(options)
        try check(avformat_write_header(pointer, &dictionary.pointer), "avformat_write_header", path: path)
        let unused = dictionary.keys
        if !unused.isEmpty {
            MediaLog.warning("muxer for \(path) ignored options: \(unused.joined(separator: ", "))")
        }
        headerWritten = true
    }

    /// Writes one packet (timestamps in the stream's time base after the header). The
    /// packet is consumed (left blank) either way.
    func write(_ packet: Packet) throws {
        try check(av_interleaved_write_frame(pointer, packet.pointer), "av_interleaved_write_frame", path: path,
                  detail: "pts \(packet.pointer.pointee.pts) dts \(packet.pointer.pointee.dts)")
    }

    /// Trailer and close, for a network destination (nothing to sync): best effort, as
    /// the peer may be gone already.
    func finishStream() {
        guard !finished else { return }
        finished = true
        if headerWritten { _ = av_write_trailer(pointer) }
        avio_closep(&pointer.pointee.pb)
    }

    /// Trailer, close, then fsync the file and its directory so that a finished file
    /// survives a power cut (the spool and the coordinator acknowledge only durable data).
    func finish() throws {
        guard !finished else { return }
        finished = true
        try check(av_write_trailer(pointer), "av_write_trailer", path: path)
        try check(avio_closep(&pointer.pointee.pb), "avio_closep", path: path)
        try FileSync.sync(path: path)
    }
}
