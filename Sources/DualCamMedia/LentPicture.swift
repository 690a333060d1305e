import CFFmpeg
import DualCamCore
import Glibc

/// Hands a YUV420Image's planes to libavcodec as read-only reference-counted buffers, so
/// an encoder reads the captured picture itself rather than a copy of it.
///
/// Each AVBufferRef keeps one retain on a `LentPicture`, whose `let` image keeps the
/// plane storage alive: libavcodec may hold the frame after `avcodec_send_frame`
/// returns (hardware encoders queue it), and the planes must outlive every reference.
/// The storage is never written while lent: the image is immutable here, and whoever
/// else holds the same arrays (a pool's picture) gets a copy-on-write copy if it writes
/// before the encoder lets go, since the arrays are then not uniquely referenced.
final class LentPicture {
    private let image: YUV420Image

    private init(_ image: YUV420Image) { self.image = image }

    /// Points `frame` (unreferenced, as av_frame_unref leaves it) at `image`'s planes.
    static func lend(_ image: YUV420Image, to frame: UnsafeMutablePointer<AVFrame>) throws {
        let owner = LentPicture(image)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(image.width)
        frame.pointee.height = Int32(image.height)
        // On a throw the caller unrefs the frame, which releases the planes lent so far.
        let y = try owner.buffer(owner.image.y)
        frame.pointee.buf.0 = y
        frame.pointee.data.0 = y.pointee.data
        frame.pointee.linesize.0 = Int32(image.lumaStride)
        let cb = try owner.buffer(owner.image.cb)
        frame.pointee.buf.1 = cb
        frame.pointee.data.1 = cb.pointee.data
        frame.pointee.linesize.1 = Int32(image.chromaStride)
        let cr = try owner.buffer(owner.image.cr)
        frame.pointee.buf.2 = cr
        frame.pointee.data.2 = cr.pointee.data
        frame.pointee.linesize.2 = Int32(image.chromaStride)
    }

    /// A read-only AVBufferRef over `plane`'s storage, holding one retain on `self`.
    /// `plane` is one of `image`'s arrays: a native array's element storage stays where
    /// it is for as long as the array buffer lives unmodified, which `image` guarantees.
    private func buffer(_ plane: [UInt8]) throws -> UnsafeMutablePointer<AVBufferRef> {
        let base = plane.withUnsafeBufferPointer { UnsafeMutablePointer(mutating: $0.baseAddress!) }
        let opaque = Unmanaged.passRetained(self).toOpaque()
        guard let buffer = av_buffer_create(base, plane.count, { opaque, _ in
            Unmanaged<LentPicture>.fromOpaque(opaque!).release()
        }, opaque, Int32(AV_BUFFER_FLAG_READONLY)) else {
            Unmanaged<LentPicture>.fromOpaque(opaque).release()
            throw FFmpegError(code: dc_averror(ENOMEM), call: "av_buffer_create", detail: "lending a picture plane")
        }
        return buffer
    }
}
