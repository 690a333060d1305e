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
}
