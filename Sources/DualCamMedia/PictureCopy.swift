import CFFmpeg
import DualCamCore

/// The copy out of a decoder's frame into Swift-owned YUV420Image storage, for decoders
/// that already output yuv420p: the decoder keeps its frames as references, and our
/// images must own their planes. (Encoders read our planes in place: LentPicture.)
enum PictureCopy {
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

    /// Copies a yuv420p `frame` into `image`, a picture of the same size (strides may
    /// differ), writing its planes in place.
    static func copy(_ frame: UnsafePointer<AVFrame>, into image: inout YUV420Image) {
        let f = frame.pointee
        precondition(Int(f.width) == image.width && Int(f.height) == image.height, "picture size differs from the frame's")
        let chromaWidth = Int32(image.chromaWidth), chromaHeight = Int32(image.chromaHeight)
        let lumaStride = Int32(image.lumaStride), chromaStride = Int32(image.chromaStride)
        image.y.withUnsafeMutableBufferPointer {
            av_image_copy_plane($0.baseAddress, lumaStride, f.data.0, f.linesize.0, f.width, f.height)
        }
        image.cb.withUnsafeMutableBufferPointer {
            av_image_copy_plane($0.baseAddress, chromaStride, f.data.1, f.linesize.1, chromaWidth, chromaHeight)
        }
        image.cr.withUnsafeMutableBufferPointer {
            av_image_copy_plane($0.baseAddress, chromaStride, f.data.2, f.linesize.2, chromaWidth, chromaHeight)
        }
    }

    private static func plane(_ source: UnsafePointer<UInt8>, stride: Int32, width: Int, height: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: width * height) { buffer, count in
            av_image_copy_plane(buffer.baseAddress, Int32(width), source, stride, Int32(width), Int32(height))
            count = width * height
        }
    }
}
