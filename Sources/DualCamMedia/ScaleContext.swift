import CFFmpeg
import DualCamCore

/// Owns one SwsContext for a fixed source/destination geometry and pixel formats.
final class ScaleContext {
    struct Geometry: Hashable {
        var sourceWidth: Int32
        var sourceHeight: Int32
        var sourceFormat: Int32
        var targetWidth: Int32
        var targetHeight: Int32
        var targetFormat: Int32
    }

    let pointer: OpaquePointer
    let geometry: Geometry

    init(_ geometry: Geometry, flags: Int32) throws {
        guard let context = sws_getContext(
            geometry.sourceWidth, geometry.sourceHeight, AVPixelFormat(rawValue: geometry.sourceFormat),
            geometry.targetWidth, geometry.targetHeight, AVPixelFormat(rawValue: geometry.targetFormat),
            flags, nil, nil, nil)
        else {
            throw FFmpegError.invalid("sws_getContext",
                                      "\(geometry.sourceWidth)x\(geometry.sourceHeight) fmt \(geometry.sourceFormat) -> \(geometry.targetWidth)x\(geometry.targetHeight) fmt \(geometry.targetFormat)")
        }
        self.pointer = context
        self.geometry = geometry
    }

    deinit { sws_freeContext(pointer) }

    /// The row padding libswscale's output needs: its SIMD row writers may store a whole
    /// vector past the last pixel, which must land in a row's padding, never past the end
    /// of a plane.
    static let strideAlignment = 64

    /// One sws_scale pass of `rows` source rows into `target`, a yuv420p picture of this
    /// context's target size whose strides are multiples of `strideAlignment`. Returns
    /// sws_scale's result (rows written, or a negative error).
    func scale(_ planes: [UnsafePointer<UInt8>?], strides: [Int32], rows: Int32, into target: inout YUV420Image) -> Int32 {
        precondition(target.width == Int(geometry.targetWidth) && target.height == Int(geometry.targetHeight),
                     "target picture size differs from the scaler's")
        precondition(target.lumaStride % Self.strideAlignment == 0 && target.chromaStride % Self.strideAlignment == 0,
                     "target rows must be padded to \(Self.strideAlignment) bytes")
        let targetStrides: [Int32] = [Int32(target.lumaStride), Int32(target.chromaStride), Int32(target.chromaStride), 0]
        return target.y.withUnsafeMutableBufferPointer { ty in
            target.cb.withUnsafeMutableBufferPointer { tcb in
                target.cr.withUnsafeMutableBufferPointer { tcr in
                    let targets: [UnsafeMutablePointer<UInt8>?] = [ty.baseAddress, tcb.baseAddress, tcr.baseAddress, nil]
                    return sws_scale(pointer, planes, strides, 0, rows, targets, targetStrides)
                }
            }
        }
    }
}
