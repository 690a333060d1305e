import DualCamCoordinator
import Foundation
import NIOCore

/// One preview picture as a binary WebSocket message (docs/STUDIO.md): a 16-byte header,
/// a 32-byte trace (flag bit 1), then the picture.
enum PreviewMessage {
    enum Kind: UInt8 {
        case h264 = 1
        case jpeg = 2
    }

    static let headerBytes = 16
    static let traceBytes = 32

    /// `written` is when the studio hands the message to its socket, on the shared clock.
    static func encode(_ picture: PreviewHub.Picture, written: Int64, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: headerBytes + traceBytes + picture.data.count)
        buffer.writeInteger(picture.format == .h264 ? Kind.h264.rawValue : Kind.jpeg.rawValue)
        buffer.writeInteger(UInt8(picture.keyframe ? 1 : 0) | 2)
        buffer.writeInteger(UInt16(clamping: picture.camera))
        buffer.writeInteger(picture.captureSharedNanoseconds)
        buffer.writeInteger(UInt16(clamping: picture.width))
        buffer.writeInteger(UInt16(clamping: picture.height))
        buffer.writeInteger(picture.trace.agentIndex)
        buffer.writeInteger(picture.trace.agentSent)
        buffer.writeInteger(picture.trace.hubReceived)
        buffer.writeInteger(written)
        buffer.writeBytes(picture.data)
        return buffer
    }
}
