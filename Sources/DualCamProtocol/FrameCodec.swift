import NIOCore
import SwiftProtobuf

/// Splits a byte stream into Envelopes: each frame is a 4-byte big-endian length followed
/// by that many bytes of protobuf-encoded Envelope.
///
/// Errors are thrown (and the channel should then be closed): after a bad frame the stream
/// position can no longer be trusted, so there is no resynchronisation.
public struct EnvelopeFrameDecoder: NIOSingleStepByteToMessageDecoder, Sendable {
    public typealias InboundOut = Dualcam_V1_Envelope

    public let maxFrameBytes: Int

    public init(maxFrameBytes: Int = WireProtocol.maxFrameBytes) {
        self.maxFrameBytes = maxFrameBytes
    }

    public mutating func decode(buffer: inout ByteBuffer) throws -> Dualcam_V1_Envelope? {
        // Peek at the prefix first so the length is checked before we wait for (and so
        // buffer) the body: an oversize length is refused after 4 bytes, not 4 GiB.
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return nil
        }
        try EnvelopeFraming.checkLength(length, limit: maxFrameBytes)
        let total = WireProtocol.lengthPrefixBytes + Int(length)
        guard buffer.readableBytes >= total else { return nil }
        buffer.moveReaderIndex(forwardBy: WireProtocol.lengthPrefixBytes)
        let body = buffer.readSlice(length: Int(length))!
        return try EnvelopeFraming.decodeBody(body)
    }

    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> Dualcam_V1_Envelope? {
        if let envelope = try decode(buffer: &buffer) { return envelope }
        // Bytes left at EOF are a frame the peer never finished; say so rather than drop it
        // silently, since it usually means the peer died mid-write.
        if seenEOF && buffer.readableBytes > 0 {
            let pending = buffer.readableBytes
            buffer.moveReaderIndex(forwardBy: pending)
            throw ProtocolError(.truncatedFrame, "connection closed with \(pending) bytes of an unfinished frame")
        }
        return nil
    }
}

/// Writes each outbound Envelope as one length-prefixed frame.
public struct EnvelopeFrameEncoder: MessageToByteEncoder, Sendable {
    public typealias OutboundIn = Dualcam_V1_Envelope

    public let maxFrameBytes: Int

    public init(maxFrameBytes: Int = WireProtocol.maxFrameBytes) {
        self.maxFrameBytes = maxFrameBytes
    }

    public func encode(data: Dualcam_V1_Envelope, out: inout ByteBuffer) throws {
        try EnvelopeFraming.write(data, into: &out, limit: maxFrameBytes)
    }
}

/// Framing without a channel: for tests, tools and the encoder/decoder above.
public enum EnvelopeFraming {
    /// One complete frame (prefix and body) for `envelope`.
    public static func encode(_ envelope: Dualcam_V1_Envelope) throws -> [UInt8] {
        let body: [UInt8] = try envelope.serializedBytes()
        try checkLength(body.count, limit: WireProtocol.maxFrameBytes)
        var frame: [UInt8] = []
        frame.reserveCapacity(WireProtocol.lengthPrefixBytes + body.count)
        let n = UInt32(body.count)
        frame.append(UInt8(truncatingIfNeeded: n >> 24))
        frame.append(UInt8(truncatingIfNeeded: n >> 16))
        frame.append(UInt8(truncatingIfNeeded: n >> 8))
        frame.append(UInt8(truncatingIfNeeded: n))
        frame.append(contentsOf: body)
        return frame
    }

    /// Appends one frame for `envelope` to `out`.
    public static func write(
        _ envelope: Dualcam_V1_Envelope, into out: inout ByteBuffer, limit: Int = WireProtocol.maxFrameBytes
    ) throws {
        let body: [UInt8] = try envelope.serializedBytes()
        // Refuse to send what the peer would refuse to receive, so the failure is reported
        // on the side that caused it.
        try checkLength(body.count, limit: limit)
        out.reserveCapacity(minimumWritableBytes: WireProtocol.lengthPrefixBytes + body.count)
        out.writeInteger(UInt32(body.count), endianness: .big)
        out.writeBytes(body)
    }

    static func checkLength<T: BinaryInteger>(_ length: T, limit: Int) throws {
        if length == 0 {
            // An empty Envelope carries no body and so no meaning; real senders never emit it.
            throw ProtocolError(.emptyFrame, "zero-length frame")
        }
        if length > limit {
            throw ProtocolError.frameTooLarge(length: Int(length), limit: limit)
        }
    }

    static func decodeBody(_ body: ByteBuffer) throws -> Dualcam_V1_Envelope {
        do {
            // Unknown fields are kept (and ignored) so newer minors interoperate.
            var options = BinaryDecodingOptions()
            options.messageDepthLimit = 16
            return try Dualcam_V1_Envelope(serializedBytes: ByteBufferBytes(body), options: options)
        } catch {
            throw ProtocolError(.undecodableFrame, "frame of \(body.readableBytes) bytes is not a valid Envelope: \(error)")
        }
    }
}
