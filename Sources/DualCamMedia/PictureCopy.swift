import CFFmpeg
import DualCamCore

/// Plane copies between Swift-owned YUV420Image storage and AVFrame buffers. These are
/// the only copies on the encode/decode paths: libavcodec needs frame memory it can
/// reference-count, and our images must own theirs.
enum PictureCopy {
    /// Copies `image` into a yuv420p `frame` of the same size (strides may differ).
    static func copy(_ image: YUV420Image, into frame: UnsafeMutablePointer<AVFrame>) {
        let chromaHeight = Int32(image.chromaHeight)
        image.y.withUnsafeBufferPointer { plane in
            av_image_copy_plane(frame.pointee.data.0, frame.pointee.linesize.0, plane.baseAddress,
                                Int32(image.lumaStride), Int32(image.width), Int32(image.height))
        }
        image.cb.withUnsafeBufferPointer { plane in
            av_image_copy_plane(frame.pointee.data.1, frame.pointee.linesize.1, plane.baseAddress,
                                Int32(image.chromaStride), Int32(image.chromaWidth), chromaHeight)
        }
        image.cr.withUnsafeBufferPointer { plane in
            av_image_copy_plane(frame.pointee.data.2, frame.pointee.linesize.2, plane.baseAddress,
                                Int32(image.chromaStride), Int32(image.chromaWidth), chromaHeight)
        }
    }

    /// A tight-stride YUV420Image from a yuv420p (or yuvj420p, same layout) frame.
    static func image(from frame: UnsafePointer<AVFrame>) -> YUV420Image {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let y = plane(frame.pointee.data.0!, stride: frame.pointee.linesize.0, width: width, height: height)
        let cb = plane(frame.pointee.data.1!, stride: frame.pointee.linesize.1, width: chromaWidth, height: chromaHeight)
        let cr = plane(frame.pointee.data.2!, stride: frame.pointee.linesize.2, width: chromaWidth, height: chromaHeight)
        return YUV420Image(width: width, height: height, lumaStride: width, chromaStride: chromaWidth,
                           y: y, cb: cb, cr: cr)
    }

    private static func plane(_ source: UnsafePointer<UInt8>, stride: Int32, width: Int, height: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: width * height) { buffer, count in
            av_image_copy_plane(buffer.baseAddress, Int32(width), source, stride, Int32(width), Int32(height))
            count = width * height
        }
    }
}
