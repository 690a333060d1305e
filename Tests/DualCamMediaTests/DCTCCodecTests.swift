import DualCamCore
import DualCamMedia
import Testing

/// DCTC must survive what the product does to pictures: H.264 at a normal bitrate, and
/// that plus a 0.5x scale through libswscale (a source in a half-size slot). So must the
/// camera's label beside it, which a person reads in the same files.
@Suite struct DCTCCodecTests {
    static let guest = PatternIdentity(name: "demo-guest", role: "guest")
    static let host = PatternIdentity(name: "demo-host", role: "host")

    @Test(arguments: [(1280, 720, 2_500_000, nil), (640, 360, 800_000, nil),
                      (320, 180, 300_000, guest), (640, 360, 800_000, host), (1280, 720, 2_500_000, guest),
                      (1920, 1080, 5_000_000, host)] as [(Int, Int, Int, PatternIdentity?)])
    func codesSurviveEncodeDecodeAndHalfScale(width: Int, height: Int, bitrate: Int, identity: PatternIdentity?) throws {
        let settings = VideoEncoderSettings(width: width, height: height, rate: .fps30, preset: "veryfast",
                                            crf: nil, bitrate: bitrate, gopFrames: 60)
        let encoder = try VideoEncoder(settings: settings)
        let pattern = SyntheticPattern(width: width, height: height, identity: identity)
        var codes: [UInt32] = []
        var packets: [EncodedPacket] = []
        var picture = YUV420Image(width: width, height: height)
        for k in 0..<45 {
            // Codes with many bit flips between frames (and the top bit set), not a counter.
            let code = UInt32(truncatingIfNeeded: (UInt64(k) &* 2_654_435_761) ^ 0x8000_5A5A)
            pattern.render(frameIndex: Int64(k), code: code, into: &picture)
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
        if let identity, let last = decoded.last {
            #expect(pattern.label?.plates.count == 2)
            for (plate, text) in zip(pattern.label?.plates ?? [], [identity.name, identity.role]) {
                #expect(Self.readsBack(plate, text: text, in: last.image), "\(text) at \(plate.rect), scale \(plate.scale)")
            }
        }
    }

    /// Every font pixel's centre, thresholded as DCTC's cells are, gives back the text's
    /// glyph mask: the letters came through the encoder whole.
    static func readsBack(_ plate: PatternLabel.Plate, text: String, in image: YUV420Image) -> Bool {
        let mask = BitmapFont.mask(text), s = plate.scale
        for my in 0..<mask.height {
            for mx in 0..<mask.width {
                let x = plate.rect.x + s + mx * s + s / 2, y = plate.rect.y + s + my * s + s / 2
                if (Int(image.luma(x, y)) > DCTC.threshold) != mask.bits[my * mask.width + mx] { return false }
            }
        }
        return true
    }
}
