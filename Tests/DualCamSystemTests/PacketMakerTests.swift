@testable import DualCamAgent
import DualCamCore
import DualCamMedia
import Foundation
import Testing

/// The encode stage for what cameras send compressed: MJPEG is decoded and re-encoded
/// (vivid, the test camera, offers no MJPEG, so the pictures come from the ffmpeg CLI).
struct PacketMakerTests {
    /// `count` JPEG pictures of ffmpeg's test pattern.
    static func jpegs(count: Int, width: Int, height: Int) throws -> [[UInt8]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=30",
                             "-frames:v", "\(count)", "-f", "mjpeg", "-"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = [UInt8](out.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        // Entropy-coded data stuffs every 0xFF with 0x00, so FF D9 only ever ends a picture.
        var pictures: [[UInt8]] = []
        var start = 0
        for i in 1..<data.count where data[i - 1] == 0xFF && data[i] == 0xD9 {
            pictures.append(Array(data[start...i]))
            start = i + 1
        }
        return pictures
    }

    @Test func mjpegIsDecodedAndReencodedAtTheSessionSize() throws {
        let pictures = try Self.jpegs(count: 4, width: 640, height: 360)
        try #require(pictures.count == 4)
        // The camera's 640x360 goes into a 320x180 session: scaled on the way.
        let settings = RecordingSettings(width: 320, height: 180, preset: "ultrafast", crf: 23)
        let maker = try PacketMaker(settings: settings, codedSize: (640, 360), passesThrough: false)
        var packets: [EncodedPacket] = []
        for (k, jpeg) in pictures.enumerated() {
            packets += try maker.make(.mjpeg(jpeg), ptsNanoseconds: Int64(k) * 33_333_333, forceKeyframe: k == 0)
        }
        packets += try maker.flush()
        #expect(packets.count == 4)
        #expect(packets.first?.isKeyframe == true)
        #expect(packets.map(\.ptsNanoseconds) == [0, 33_333_333, 66_666_666, 99_999_999])
        let parameters = try #require(maker.parameters)
        #expect(parameters.codecName == "h264" && parameters.width == 320 && parameters.height == 180)
        let decoder = try VideoDecoder(parameters: parameters)
        var images: [YUV420Image] = []
        for packet in packets { images += try decoder.decode(packet).map(\.image) }
        images += try decoder.flush().map(\.image)
        #expect(images.count == 4)
        // ffmpeg's testsrc: many distinct levels along a row, not a grey or black frame.
        let levels = Set(stride(from: 0, to: 320, by: 4).map { images[0].luma($0, 30) })
        #expect(levels.count > 8, "\(levels.sorted())")
    }

    /// MJPEG is decoded on libavcodec's threads where the decoder has them: a keyframe
    /// asked for a frame lands on that frame's packet, whenever its picture comes out, and
    /// the flush hands on the pictures still inside the decoder.
    @Test func mjpegKeyframesLandOnTheirOwnFrames() throws {
        let pictures = try Self.jpegs(count: 6, width: 320, height: 180)
        try #require(pictures.count == 6)
        let maker = try PacketMaker(settings: RecordingSettings(width: 320, height: 180, preset: "ultrafast", crf: 23),
                                    codedSize: (320, 180), passesThrough: false)
        var packets: [EncodedPacket] = []
        for (k, jpeg) in pictures.enumerated() {
            packets += try maker.make(.mjpeg(jpeg), ptsNanoseconds: Int64(k) * 33_333_333, forceKeyframe: k == 0 || k == 4)
        }
        packets += try maker.flush()
        #expect(packets.map(\.ptsNanoseconds) == (0..<6).map { Int64($0) * 33_333_333 })
        #expect(packets.filter(\.isKeyframe).map(\.ptsNanoseconds) == [0, 4 * 33_333_333])
    }

    @Test func passThroughWaitsForAKeyframe() throws {
        let settings = RecordingSettings(width: 320, height: 180)
        let maker = try PacketMaker(settings: settings, codedSize: (320, 180), passesThrough: true)
        // A P slice (NAL type 1) before any IDR cannot start a segment.
        #expect(try maker.make(.h264([0, 0, 0, 1, 0x41, 0x9A, 0x00]), ptsNanoseconds: 0, forceKeyframe: true).isEmpty)
        #expect(maker.droppedBeforeKeyframe == 1)
        let idr: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0x1E, 0, 0, 0, 1, 0x68, 0xCE, 0x38, 0x80, 0, 0, 0, 1, 0x65, 0x88, 0x84]
        let out = try maker.make(.h264(idr), ptsNanoseconds: 33_333_333, forceKeyframe: false)
        #expect(out.count == 1 && out[0].isKeyframe && out[0].data == idr)
        #expect(maker.parameters?.extradata == [0, 0, 0, 1, 0x67, 0x42, 0, 0x1E, 0, 0, 0, 1, 0x68, 0xCE, 0x38, 0x80])
    }
}
