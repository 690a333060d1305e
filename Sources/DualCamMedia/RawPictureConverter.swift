import CFFmpeg
import DualCamCore

/// Converts one raw camera picture in memory (YUYV, UYVY, NV12, NV21, YU12, YV12) to a
/// yuv420p image of the wanted size in one libswscale pass: the pass is also the copy out
/// of the driver's buffer, straight into a reused picture, so a captured frame is touched
/// once before the encoder reads it in place.
/// Not thread-safe.
public final class RawPictureConverter {
    public let fourcc: FourCC
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let targetWidth: Int
    public let targetHeight: Int
    private let context: ScaleContext
    private let swapChroma: Bool

    /// The formats this converter reads, in the order capture prefers them when a camera
    /// offers several at the wanted size and rate (planar 4:2:0 needs the least work).
    public static let supported: [FourCC] = [.yu12, .yv12, .nv12, .nv21, .yuyv, .uyvy]

    public init(fourcc: FourCC, width: Int, height: Int, targetWidth: Int, targetHeight: Int) throws {
        let format: AVPixelFormat
        switch fourcc {
        case .yuyv: format = AV_PIX_FMT_YUYV422
        case .uyvy: format = AV_PIX_FMT_UYVY422
        case .nv12: format = AV_PIX_FMT_NV12
        case .nv21: format = AV_PIX_FMT_NV21
        case .yu12, .yv12: format = AV_PIX_FMT_YUV420P
        default: throw FFmpegError.invalid("RawPictureConverter", "pixel format \(fourcc) is not a raw format DualCam reads")
        }
        self.fourcc = fourcc
        self.sourceWidth = width
        self.sourceHeight = height
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        self.swapChroma = fourcc == .yv12
        let flags = width == targetWidth && height == targetHeight ? SWS_POINT : SWS_BILINEAR
        context = try ScaleContext(.init(sourceWidth: Int32(width), sourceHeight: Int32(height), sourceFormat: format.rawValue,
                                         targetWidth: Int32(targetWidth), targetHeight: Int32(targetHeight),
                                         targetFormat: AV_PIX_FMT_YUV420P.rawValue), flags: flags)
    }

    /// Bytes one picture of this format occupies with `bytesPerLine` luma (or packed) rows.
    public func minimumBytes(bytesPerLine: Int) -> Int {
        switch fourcc {
        case .yuyv, .uyvy: return bytesPerLine * sourceHeight
        case .nv12, .nv21: return bytesPerLine * sourceHeight + bytesPerLine * ((sourceHeight + 1) / 2)
        default: return bytesPerLine * sourceHeight + 2 * (bytesPerLine / 2) * ((sourceHeight + 1) / 2)
        }
    }

    /// `bytes` holds one picture whose first plane rows are `bytesPerLine` apart (planes
    /// follow each other, as V4L2 single-planar formats lay them out). It is converted
    /// into `target`, a picture of the target size with rows padded to
    /// `strideAlignment` (a pool's picture, filled in place).
    public func convert(_ bytes: UnsafeRawBufferPointer, bytesPerLine: Int, into target: inout YUV420Image) throws {
        guard bytes.count >= minimumBytes(bytesPerLine: bytesPerLine), let base = bytes.baseAddress else {
            throw FFmpegError.invalid("RawPictureConverter.convert",
                                      "\(fourcc) \(sourceWidth)x\(sourceHeight) needs \(minimumBytes(bytesPerLine: bytesPerLine)) bytes, got \(bytes.count)")
        }
        let start = base.assumingMemoryBound(to: UInt8.self)
        var planes: [UnsafePointer<UInt8>?] = [UnsafePointer(start), nil, nil, nil]
        var strides: [Int32] = [Int32(bytesPerLine), 0, 0, 0]
        let lumaBytes = bytesPerLine * sourceHeight
        switch fourcc {
        case .nv12, .nv21:
            planes[1] = UnsafePointer(start + lumaBytes)
            strides[1] = Int32(bytesPerLine)
        case .yu12, .yv12:
            let chromaStride = bytesPerLine / 2
            let chromaBytes = chromaStride * ((sourceHeight + 1) / 2)
            let first = UnsafePointer(start + lumaBytes), second = UnsafePointer(start + lumaBytes + chromaBytes)
            planes[1] = swapChroma ? second : first
            planes[2] = swapChroma ? first : second
            strides[1] = Int32(chromaStride)
            strides[2] = Int32(chromaStride)
        default:
            break
        }
        let rows = context.scale(planes, strides: strides, rows: Int32(sourceHeight), into: &target)
        guard rows > 0 else { throw FFmpegError(code: rows < 0 ? rows : dc_averror(EINVAL), call: "sws_scale", detail: "\(fourcc) to yuv420p") }
    }

    /// The row padding `convert`'s target pictures need.
    public static var strideAlignment: Int { ScaleContext.strideAlignment }
}
