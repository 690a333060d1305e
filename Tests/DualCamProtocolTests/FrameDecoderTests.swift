import Foundation
import NIOCore
import NIOEmbedded
import Testing
@testable import DualCamProtocol

@Suite struct FrameDecoderTests {
    /// One of each kind of message, with enough fields set to exercise varints and bytes.
    static func sampleEnvelopes(count: Int) -> [Dualcam_V1_Envelope] {
        (0..<count).map { i in
            let seq = UInt64(i + 1)
            switch i % 6 {
            case 0: return Envelopes.envelope(.hello(Envelopes.hello()), sequence: seq)
            case 1: return Envelopes.envelope(.prepare(Envelopes.prepare("s-\(i)")), sequence: seq)
            case 2: return Envelopes.envelope(.segmentData(Envelopes.data("s", index: UInt32(i), offset: 0, count: 100 + i * 37, size: 1 << 20)), sequence: seq)
            case 3:
                var ping = Dualcam_V1_ClockPing()
                ping.id = UInt64(i)
                ping.t1Ns = Int64(i) * 1_000_003
                return Envelopes.envelope(.clockPing(ping), sequence: seq)
            case 4: return Envelopes.envelope(.keepalive(Dualcam_V1_Keepalive()), sequence: seq)
            default: return Envelopes.envelope(.segmentOffer(Envelopes.offer("s", index: UInt32(i), size: 4096)), sequence: seq)
            }
        }
    }

    static func stream(_ envelopes: [Dualcam_V1_Envelope]) throws -> [UInt8] {
        try envelopes.flatMap { try EnvelopeFraming.encode($0) }
    }

    @Test func roundTripsEveryFrameDirectly() throws {
        let envelopes = Self.sampleEnvelopes(count: 12)
        var buffer = ByteBuffer(bytes: try Self.stream(envelopes))
        var decoder = EnvelopeFrameDecoder()
        var decoded: [Dualcam_V1_Envelope] = []
        while let e = try decoder.decode(buffer: &buffer) { decoded.append(e) }
        #expect(decoded == envelopes)
        #expect(buffer.readableBytes == 0)
    }

    @Test func dripFeedOneByteAtATime() throws {
        let envelopes = Self.sampleEnvelopes(count: 60)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeFrameDecoder()))
        for byte in try Self.stream(envelopes) {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        var decoded: [Dualcam_V1_Envelope] = []
        while let e = try channel.readInbound(as: Dualcam_V1_Envelope.self) { decoded.append(e) }
        #expect(decoded == envelopes)
        #expect(try channel.finish().isClean)
    }

    @Test func manyFramesInOneBuffer() throws {
        let envelopes = Self.sampleEnvelopes(count: 2000)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeFrameDecoder()))
        try channel.writeInbound(ByteBuffer(bytes: try Self.stream(envelopes)))
        var decoded: [Dualcam_V1_Envelope] = []
        while let e = try channel.readInbound(as: Dualcam_V1_Envelope.self) { decoded.append(e) }
        #expect(decoded == envelopes)
        #expect(try channel.finish().isClean)
    }

    @Test func framesSplitAtEveryPossibleBoundary() throws {
        let envelopes = Self.sampleEnvelopes(count: 3)
        let bytes = try Self.stream(envelopes)
        for cut in 0...bytes.count {
            var decoder = EnvelopeFrameDecoder()
            var buffer = ByteBuffer(bytes: bytes[..<cut])
            var decoded: [Dualcam_V1_Envelope] = []
            while let e = try decoder.decode(buffer: &buffer) { decoded.append(e) }
            buffer.writeBytes(bytes[cut...])
            while let e = try decoder.decode(buffer: &buffer) { decoded.append(e) }
            #expect(decoded == envelopes, "cut at \(cut)")
        }
    }

    @Test func oversizeLengthRejectedFromThePrefixAlone() throws {
        for length in [UInt32(WireProtocol.maxFrameBytes + 1), UInt32.max] {
            // Only the four prefix bytes exist: the decoder must refuse now rather than
            // wait for (and buffer) a body of that size.
            var buffer = ByteBuffer()
            buffer.writeInteger(length, endianness: .big)
            var decoder = EnvelopeFrameDecoder()
            #expect {
                _ = try decoder.decode(buffer: &buffer)
            } throws: { error in
                (error as? ProtocolError)?.code == .frameTooLarge
            }
        }
    }

    @Test func oversizeFrameClosesTheChannelPipeline() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeFrameDecoder()))
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(64 * 1024 * 1024), endianness: .big)
        #expect(throws: ProtocolError.self) { try channel.writeInbound(buffer) }
        _ = try? channel.finish()
    }

    @Test func largestAllowedFrameWaitsForItsBody() throws {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(WireProtocol.maxFrameBytes), endianness: .big)
        var decoder = EnvelopeFrameDecoder()
        #expect(try decoder.decode(buffer: &buffer) == nil)
        #expect(buffer.readableBytes == 4, "nothing consumed while waiting")
    }

    @Test func zeroLengthFrameRejected() {
        var buffer = ByteBuffer(bytes: [0, 0, 0, 0])
        var decoder = EnvelopeFrameDecoder()
        #expect {
            _ = try decoder.decode(buffer: &buffer)
        } throws: { error in
            (error as? ProtocolError)?.code == .emptyFrame
        }
    }

    @Test func garbageBodyRejected() {
        // 0xFF… is a field key with an unterminated varint: not a protobuf message.
        var buffer = ByteBuffer(bytes: [0, 0, 0, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        var decoder = EnvelopeFrameDecoder()
        #expect {
            _ = try decoder.decode(buffer: &buffer)
        } throws: { error in
            (error as? ProtocolError)?.code == .undecodableFrame
        }
    }

    @Test func lengthDelimitedFieldLongerThanTheFrameRejected() {
        // Field 20 (segment_data), wire type 2, claiming 2^31 bytes inside a 9-byte frame.
        var buffer = ByteBuffer(bytes: [0, 0, 0, 7, 0xA2, 0x01, 0x80, 0x80, 0x80, 0x80, 0x08])
        var decoder = EnvelopeFrameDecoder()
        #expect(throws: ProtocolError.self) { _ = try decoder.decode(buffer: &buffer) }
    }

    @Test func unfinishedFrameAtEOFReported() throws {
        let frame = try EnvelopeFraming.encode(Envelopes.envelope(.hello(Envelopes.hello()), sequence: 1))
        var buffer = ByteBuffer(bytes: frame.dropLast(3))
        var decoder = EnvelopeFrameDecoder()
        #expect(try decoder.decode(buffer: &buffer) == nil)
        #expect {
            _ = try decoder.decodeLast(buffer: &buffer, seenEOF: true)
        } throws: { error in
            (error as? ProtocolError)?.code == .truncatedFrame
        }
    }

    @Test func unknownFieldsAndBodiesFromNewerMinorsAreTolerated() throws {
        // sequence = 7, then field 99 (an unknown oneof member) as a length-delimited blob.
        let body: [UInt8] = [0x08, 0x07, 0x9A, 0x06, 0x03, 0x01, 0x02, 0x03]
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(body.count), endianness: .big)
        buffer.writeBytes(body)
        var decoder = EnvelopeFrameDecoder()
        let envelope = try #require(try decoder.decode(buffer: &buffer))
        #expect(envelope.sequence == 7)
        #expect(envelope.body == nil)
        #expect(!envelope.unknownFields.data.isEmpty)
    }
}
