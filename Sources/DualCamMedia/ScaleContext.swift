import CFFmpeg

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
}
