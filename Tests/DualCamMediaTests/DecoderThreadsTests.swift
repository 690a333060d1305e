import DualCamCore
import DualCamMedia
import Testing

/// Decoding with libavcodec's threads (issue 19): a picture may come out packets after its
/// own, and must still carry its own capture instant and come out in order, every one of
/// them by the flush. Each picture carries its instant as a DCTC code, so a picture paired
/// with another's timestamp shows.
struct DecoderThreadsTests {
    static let (width, height) = (320, 192)

    /// Capture instants as a camera gives them: a frame period with jitter, not a grid.
    static func instants(_ count: Int) -> [Int64] {
        (0..<count).map { Int64($0) * 33_333_333 + Int64(($0 * 7919) % 1_900_000) + 5_000_000_000 }
    }

    static func picture(at instant: Int64, index: Int) -> YUV420Image {
        var image = YUV420Image(width: width, height: height)
        SyntheticPicture.render(frameIndex: Int64(index), into: &image)
        DCTC.draw(DCTC.code(trueNanoseconds: instant), into: &image)
        return image
    }

    /// Every picture back, in order, with its own timestamp and its own code.
    static func expectEachPictureKeepsItsInstant(_ decoded: [DecodedFrame], _ instants: [Int64]) {
        #expect(decoded.map(\.ptsNanoseconds) == instants)
        for (frame, instant) in zip(decoded, instants) {
            #expect(DCTC.read(frame.image) == DCTC.code(trueNanoseconds: instant), "picture stamped \(frame.ptsNanoseconds)")
        }
    }

    /// A webcam's MJPEG, decoded as the agent does (threads 0: one per core). Debian 12's
    /// FFmpeg 5.1 has no threading in its mjpeg decoder and says so; a later one may.
    @Test func mjpegDecodedWithThreadsKeepsEachFramesInstant() throws {
        let instants = Self.instants(12)
        let jpeg = try JPEGEncoder(width: Self.width, height: Self.height, quality: 3)
        let decoder = try VideoDecoder(parameters: CodecParameters(codecName: "mjpeg", width: Self.width, height: Self.height,
                                                                   pixelFormat: nil), threads: 0)
        var decoded: [DecodedFrame] = []
        for (k, instant) in instants.enumerated() {
            let bytes = try jpeg.encode(Self.picture(at: instant, index: k))
            decoded += try decoder.decode(EncodedPacket(data: bytes, ptsNanoseconds: instant, dtsNanoseconds: instant,
                                                        durationNanoseconds: 33_333_333, isKeyframe: true))
        }
        decoded += try decoder.flush()
        print("DECODER-THREADS mjpeg: \(decoder.threading), frame delay \(decoder.frameDelay)")
        Self.expectEachPictureKeepsItsInstant(decoded, instants)
    }

    /// H.264, whose decoder does run frame threads: pictures come out late, and still each
    /// with its own instant, none lost at the flush.
    @Test func frameThreadsDelayPicturesButNotTheirInstants() throws {
        let instants = Self.instants(24)
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: Self.width, height: Self.height, rate: .fps30,
                                                                      preset: "ultrafast", gopFrames: 12, threads: 1))
        var packets: [EncodedPacket] = []
        for (k, instant) in instants.enumerated() {
            packets += try encoder.encode(Self.picture(at: instant, index: k), ptsNanoseconds: instant, forceKeyframe: k == 0)
        }
        packets += try encoder.flush()
        let decoder = try VideoDecoder(parameters: encoder.parameters, threads: 4)
        #expect(decoder.threading == "frame threads ×4")
        #expect(decoder.frameDelay == 3)
        var decoded: [DecodedFrame] = []
        var outAfterFirstPacket = -1
        for packet in packets {
            decoded += try decoder.decode(packet)
            if outAfterFirstPacket < 0 { outAfterFirstPacket = decoded.count }
        }
        let beforeFlush = decoded.count
        decoded += try decoder.flush()
        // The delay is real: the first packet gave nothing yet, the flush the last ones.
        #expect(outAfterFirstPacket == 0 && beforeFlush < instants.count, "\(outAfterFirstPacket), \(beforeFlush)")
        Self.expectEachPictureKeepsItsInstant(decoded, instants)
    }
}
