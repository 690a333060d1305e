import DualCamCoordinator
import Foundation
import NIOCore

/// One preview picture as a binary WebSocket message (docs/STUDIO.md): a 16-byte header,
/// then the picture.
enum PreviewMessage {
    enum Kind: UInt8 {
        case h264 = 1
        case jpeg = 2
    }

    static let headerBytes = 16

    static func encode(_ picture: PreviewHub.Picture, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: headerBytes + picture.data.count)
        buffer.writeInteger(picture.format == .h264 ? Kind.h264.rawValue : Kind.jpeg.rawValue)
        buffer.writeInteger(UInt8(picture.keyframe ? 1 : 0))
        buffer.writeInteger(UInt16(clamping: picture.camera))
        buffer.writeInteger(picture.captureSharedNanoseconds)
        buffer.writeInteger(UInt16(clamping: picture.width))
        buffer.writeInteger(UInt16(clamping: picture.height))
        buffer.writeBytes(picture.data)
        return buffer
    }
}
