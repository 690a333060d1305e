import CFFmpeg
import Glibc

/// Owns one AVFrame (and, through its refcounted buffers, the picture memory).
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "av_frame_alloc")
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    func unref() { av_frame_unref(pointer) }
}
