import Foundation
import NIOCore
import NIOEmbedded
import Testing
@testable import DualCamProtocol

@Suite struct FrameEncoderTests {
    @Test func encoderWritesLengthPrefixedFrames() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(EnvelopeFrameEncoder()))
        let envelope = Envelopes.envelope(.stop(Envelopes.stop("abc")), sequence: 3)
        try channel.writeOutbound(envelope)
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(Array(written.readableBytesView) == (try EnvelopeFraming.encode(envelope)))
        let length = written.getInteger(at: written.readerIndex, endianness: .big, as: UInt32.self)
        #expect(length.map(Int.init) == written.readableBytes - 4)
        #expect(try channel.finish().isClean)
    }

    @Test func encoderAndDecoderRoundTripThroughChannels() throws {
        let out = EmbeddedChannel()
        try out.pipeline.syncOperations.addHandler(MessageToByteHandler(EnvelopeFrameEncoder()))
        let into = EmbeddedChannel()
        try into.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeFrameDecoder()))
        let envelopes = FrameDecoderTests.sampleEnvelopes(count: 30)
        for e in envelopes { try out.writeOutbound(e) }
        while let bytes = try out.readOutbound(as: ByteBuffer.self) { try into.writeInbound(bytes) }
        var decoded: [Dualcam_V1_Envelope] = []
        while let e = try into.readInbound(as: Dualcam_V1_Envelope.self) { decoded.append(e) }
        #expect(decoded == envelopes)
    }

    @Test func fullSizeChunkFitsInAFrame() throws {
        let chunk = Envelopes.data("s", index: 0, offset: 0, count: WireProtocol.maxSegmentChunkBytes, size: 1 << 30)
        let frame = try EnvelopeFraming.encode(Envelopes.envelope(.segmentData(chunk), sequence: 1))
        #expect(frame.count < WireProtocol.maxFrameBytes / 8)
    }

    @Test func senderRefusesFramesThePeerWouldRefuse() {
        var data = Dualcam_V1_SegmentData()
        data.data = Data(count: WireProtocol.maxFrameBytes)
        let envelope = Envelopes.envelope(.segmentData(data), sequence: 1)
        #expect {
            _ = try EnvelopeFraming.encode(envelope)
        } throws: { error in
            (error as? ProtocolError)?.code == .frameTooLarge
        }
        var buffer = ByteBuffer()
        #expect(throws: ProtocolError.self) { try EnvelopeFrameEncoder().encode(data: envelope, out: &buffer) }
        #expect(buffer.readableBytes == 0, "nothing half-written")
    }

    @Test func emptyEnvelopeIsNotSent() {
        // A default Envelope serialises to zero bytes, which receivers refuse.
        #expect(throws: ProtocolError.self) { _ = try EnvelopeFraming.encode(Dualcam_V1_Envelope()) }
    }
}
