import CFFmpeg
import DualCamCore

/// The compositor's Scaler on libswscale: crops by offsetting the plane pointers (no
/// copy) and scales bilinearly in one pass.
///
/// Output planes have strides padded for swscale's SIMD stores (see ScaleContext).
/// Contexts are cached per geometry (a few, least recently used first out) because
/// layouts animate through many sizes. Not thread-safe.
public final class SwsScaler: Scaler {
    private static let capacity = 8
    private var contexts: [ScaleContext.Geometry: ScaleContext] = [:]
    private var recentlyUsed: [ScaleContext.Geometry] = []
    private let flags: Int32

    /// `fast`: swscale's fast bilinear path (no accurate rounding), for scaling every
    /// frame of a recording (digital zoom), where the compositor's care costs too much.
    public init(fast: Bool = false) {
        flags = fast ? SWS_FAST_BILINEAR : SWS_BILINEAR | SWS_ACCURATE_RND
    }

    /// `crop` is clipped to the source; x and y should be even so that chroma lines up
    /// (odd values are rounded down for chroma). An empty crop gives a black picture.
    public func scale(_ source: YUV420Image, crop: PixelRect, toWidth width: Int, height: Int) -> YUV420Image {
        precondition(width > 0 && height > 0, "target size must be positive")
        var target = YUV420Image(width: width, height: height, strideAlignment: ScaleContext.strideAlignment)
        scale(source, crop: crop, into: &target)
        return target
    }

    /// Scales into a picture the caller keeps (a pool's, so nothing is allocated per
    /// frame), whose rows are padded to `SwsScaler.strideAlignment`. Leaves it as it was
    /// when the crop is empty or the scaler cannot be made (logged).
    public func scale(_ source: YUV420Image, crop: PixelRect, into target: inout YUV420Image) {
        let x = max(0, crop.x), y = max(0, crop.y)
        let cropWidth = min(crop.x + crop.width, source.width) - x
        let cropHeight = min(crop.y + crop.height, source.height) - y
        guard cropWidth > 0, cropHeight > 0 else { return }

        let geometry = ScaleContext.Geometry(sourceWidth: Int32(cropWidth), sourceHeight: Int32(cropHeight),
                                             sourceFormat: AV_PIX_FMT_YUV420P.rawValue,
                                             targetWidth: Int32(target.width), targetHeight: Int32(target.height),
                                             targetFormat: AV_PIX_FMT_YUV420P.rawValue)
        let context: ScaleContext
        do {
            context = try self.context(for: geometry)
        } catch {
            // The protocol cannot throw; the picture keeps the recording going and the
            // log says why.
            MediaLog.error("SwsScaler: \(error)")
            return
        }
        let lumaOffset = y * source.lumaStride + x
        let chromaOffset = (y / 2) * source.chromaStride + x / 2
        let sourceStrides: [Int32] = [Int32(source.lumaStride), Int32(source.chromaStride), Int32(source.chromaStride), 0]
        source.y.withUnsafeBufferPointer { sy in
            source.cb.withUnsafeBufferPointer { scb in
                source.cr.withUnsafeBufferPointer { scr in
                    let sources: [UnsafePointer<UInt8>?] = [
                        sy.baseAddress! + lumaOffset, scb.baseAddress! + chromaOffset, scr.baseAddress! + chromaOffset, nil]
                    _ = context.scale(sources, strides: sourceStrides, rows: Int32(cropHeight), into: &target)
                }
            }
        }
    }

    /// The row padding `scale(_:crop:into:)` needs in its target.
    public static var strideAlignment: Int { ScaleContext.strideAlignment }

    private func context(for geometry: ScaleContext.Geometry) throws -> ScaleContext {
        if let cached = contexts[geometry] {
            if recentlyUsed.last != geometry {
                recentlyUsed.removeAll { $0 == geometry }
                recentlyUsed.append(geometry)
            }
            return cached
        }
        let created = try ScaleContext(geometry, flags: flags)
        if contexts.count >= SwsScaler.capacity, let oldest = recentlyUsed.first {
            recentlyUsed.removeFirst()
            contexts[oldest] = nil
        }
        contexts[geometry] = created
        recentlyUsed.append(geometry)
        return created
    }
}
