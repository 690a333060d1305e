import CFFmpeg
import Glibc

/// Owns one AVCodecContext (encoder or decoder).
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>

    init(codec: UnsafePointer<AVCodec>) throws {
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avcodec_alloc_context3",
                              detail: String(cString: codec.pointee.name))
        }
        self.pointer = context
        self.codec = codec
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&context)
    }

    var codecName: String { String(cString: codec.pointee.name) }

    /// An opened decoder for a stream described by `parameters` (written through
    /// AVCodecParameters so extradata ownership follows libavcodec's rules), taking
    /// packets in nanoseconds so frames come out in nanoseconds too.
    /// `threads`: libavcodec's thread_count (0: one per core, 1: none), frame and slice
    /// threading both allowed; the decoder uses what it supports.
    static func openDecoder(id: AVCodecID, name: String, threads: Int = 1,
                            describe: (UnsafeMutablePointer<AVCodecParameters>) throws -> Void) throws -> CodecContext {
        guard let codec = avcodec_find_decoder(id) else {
            throw FFmpegError(code: dc_averror_decoder_not_found(), call: "avcodec_find_decoder", detail: "no decoder for \(name)")
        }
        let context = try CodecContext(codec: codec)
        guard let par = avcodec_parameters_alloc() else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avcodec_parameters_alloc")
        }
        var doomed: UnsafeMutablePointer<AVCodecParameters>? = par
        defer { avcodec_parameters_free(&doomed) }
        try describe(par)
        try check(avcodec_parameters_to_context(context.pointer, par), "avcodec_parameters_to_context")
        context.pointer.pointee.pkt_timebase = Timestamps.nanosecondBase
        context.pointer.pointee.thread_count = Int32(clamping: max(threads, 0))
        context.pointer.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        try check(avcodec_open2(context.pointer, codec, nil), "avcodec_open2", detail: "decoder \(name)")
        return context
    }
}
