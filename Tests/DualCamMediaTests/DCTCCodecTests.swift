import DualCamCore
import DualCamMedia
import Testing

/// DCTC must survive what the product does to pictures: H.264 at a normal bitrate, and
/// that plus a 0.5x scale through libswscale (a source in a half-size slot).
@Suite struct DCTCCodecTests {
    @Test(arguments: [(1280, 720, 2_500_000), (640, 360, 800_000)])
    func codesSurviveEncodeDecodeAndHalfScale(width: Int, height: Int, bitrate: Int) throws {
        let settings = VideoEncoderSettings(width: width, height: height, rate: .fps30, preset: "veryfast",
                                            crf: nil, bitrate: bitrate, gopFrames: 60)
        let encoder = try VideoEncoder(settings: settings)
        var codes: [UInt32] = []
        var packets: [EncodedPacket] = []
        var picture = YUV420Image(width: width, height: height)
        for k in 0..<45 {
            // Codes with many bit flips between frames (and the top bit set), not a counter.
            let code = UInt32(truncatingIfNeeded: (UInt64(k) &* 2_654_435_761) ^ 0x8000_5A5A)
            SyntheticPicture.render(frameIndex: Int64(k), into: &picture)
            DCTC.draw(code, into: &picture)
            codes.append(code)
            packets += try encoder.encode(picture, ptsNanoseconds: FrameRate.fps30.instant(ofFrame: Int64(k)),
                                          forceKeyframe: k == 0)
        }
        packets += try encoder.flush()
        let decoder = try VideoDecoder(parameters: encoder.parameters)
        var decoded: [DecodedFrame] = []
        for packet in packets { decoded += try decoder.decode(packet) }
        decoded += try decoder.flush()
        try #require(decoded.count == codes.count)

        let scaler = SwsScaler()
        for (frame, code) in zip(decoded, codes) {
            #expect(DCTC.read(frame.image) == code)
            let half = scaler.scale(frame.image, crop: PixelRect(x: 0, y: 0, width: width, height: height),
                                    toWidth: width / 2, height: height / 2)
            #expect(DCTC.read(half, slot: PixelRect(x: 0, y: 0, width: width / 2, height: height / 2),
                              sourceWidth: width, sourceHeight: height) == code)
        }
    }
}
