import DualCamCore
import DualCamTestSupport
@testable import DualCamMedia
import Foundation
import Testing

/// The capture path touches a picture's memory only where a conversion needs it: the
/// encoder reads the caller's planes in place, and a raw camera picture is converted
/// straight into a reused one.
struct InPlacePictureTests {
    static func address(_ plane: inout [UInt8]) -> Int {
        plane.withUnsafeMutableBufferPointer { Int(bitPattern: $0.baseAddress) }
    }

    /// The encoder must let go of the planes by the time `encode` returns: a pool
    /// overwrites them for the next frame, which would otherwise copy them (copy-on-write)
    /// or, if the encoder kept a raw pointer, change a frame it had not read yet.
    @Test func theEncoderReadsPlanesInPlaceAndLetsGoOfThem() throws {
        let settings = VideoEncoderSettings(width: 320, height: 180, rate: .fps30, preset: "ultrafast", gopFrames: 30)
        let encoder = try VideoEncoder(settings: settings)
        // Padded rows, as a swscale-filled camera picture has them.
        var picture = YUV420Image(width: 320, height: 180, strideAlignment: 128)
        let lumaAddress = Self.address(&picture.y)
        var packets: [EncodedPacket] = []
        var sent: [YUV420Image] = []
        for k in 0..<6 {
            let moving = TestPictures.moving(width: 320, height: 180, frame: k * 8)
            for row in 0..<180 {
                for column in 0..<320 { picture.y[row * picture.lumaStride + column] = moving.luma(column, row) }
            }
            for row in 0..<90 {
                for column in 0..<160 {
                    picture.cb[row * picture.chromaStride + column] = moving.cb[row * moving.chromaStride + column]
                    picture.cr[row * picture.chromaStride + column] = moving.cr[row * moving.chromaStride + column]
                }
            }
            #expect(Self.address(&picture.y) == lumaAddress, "frame \(k): the planes were copied, not reused")
            packets += try encoder.encode(picture, ptsNanoseconds: Int64(k) * 33_333_333, forceKeyframe: k == 0)
            sent.append(moving)
        }
        packets += try encoder.flush()
        #expect(packets.count == 6)
        let decoder = try VideoDecoder(parameters: encoder.parameters)
        var decoded: [YUV420Image] = []
        for packet in packets { decoded += try decoder.decode(packet).map(\.image) }
        decoded += try decoder.flush().map(\.image)
        try #require(decoded.count == 6)
        // Each frame is the picture as it was when sent, not as the buffer was later.
        for (k, image) in decoded.enumerated() {
            let own = TestPictures.lumaPSNR(image, sent[k])
            let next = TestPictures.lumaPSNR(image, sent[min(k + 1, 5)])
            #expect(own > 35, "frame \(k): \(own) dB")
            if k < 5 { #expect(own > next + 3, "frame \(k) looks like frame \(k + 1): \(own) vs \(next) dB") }
        }
    }

    /// Planar and semi-planar camera formats at the session size are rearranged, not
    /// resampled: every sample must arrive exactly, in the reused picture's own planes.
    @Test(arguments: [FourCC.yu12, .yv12, .nv12, .nv21])
    func aRawPictureIsConvertedIntoTheGivenPicture(fourcc: FourCC) throws {
        let width = 200, height = 120, bytesPerLine = 224
        let source = TestPictures.moving(width: width, height: height, frame: 3)
        let bytes = Self.cameraBytes(source, fourcc: fourcc, bytesPerLine: bytesPerLine)
        let converter = try RawPictureConverter(fourcc: fourcc, width: width, height: height,
                                                targetWidth: width, targetHeight: height)
        var target = YUV420Image(width: width, height: height, strideAlignment: RawPictureConverter.strideAlignment)
        let lumaAddress = Self.address(&target.y)
        for _ in 0..<2 {
            try bytes.withUnsafeBytes { try converter.convert($0, bytesPerLine: bytesPerLine, into: &target) }
        }
        #expect(Self.address(&target.y) == lumaAddress)
        var wrong = 0
        for row in 0..<height {
            for column in 0..<width where target.luma(column, row) != source.luma(column, row) { wrong += 1 }
        }
        for row in 0..<source.chromaHeight {
            for column in 0..<source.chromaWidth {
                if target.cb[row * target.chromaStride + column] != source.cb[row * source.chromaStride + column] { wrong += 1 }
                if target.cr[row * target.chromaStride + column] != source.cr[row * source.chromaStride + column] { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(fourcc): \(wrong) samples differ")
    }

    /// A camera's MJPEG (yuvj422p, converted) and raw yuv420p (copied), one frame per
    /// packet as a camera sends them: a picture handed back is filled again in place,
    /// with the same pixels a fresh one gets.
    @Test(arguments: [["-c:v", "mjpeg", "-pix_fmt", "yuvj422p"], ["-c:v", "rawvideo", "-pix_fmt", "yuv420p"]])
    func aRecycledPictureIsDecodedIntoAgain(_ encoding: [String]) throws {
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let path = folder.file("input.mkv")
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x96:rate=10", "-frames:v", "4"]
            + encoding + [path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        try #require(ffmpeg.terminationStatus == 0)
        var fresh: [YUV420Image] = []
        try MediaProbe.forEachFrame(path: path) { fresh.append($0.image) }
        try #require(fresh.count == 4)

        let demuxer = try MediaDemuxer(path: path)
        let decoder = try VideoDecoder(parameters: demuxer.videoParameters)
        var addresses: Set<Int> = []
        var decoded = 0
        func take(_ frames: [DecodedFrame]) {
            for frame in frames {
                let image = frame.image
                #expect(TestPictures.lumaPSNR(image, fresh[decoded]) == 99, "frame \(decoded) differs from a fresh decode")
                decoded += 1
                // Read, not written: a mutable access here would itself copy the planes.
                addresses.insert(image.y.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) })
                decoder.recycle(image)
            }
        }
        while let packet = try demuxer.nextVideoPacket() { take(try decoder.decode(packet)) }
        take(try decoder.flush())
        #expect(decoded == 4)
        #expect(addresses.count == 1, "\(addresses.count) luma planes for 4 frames")
    }

    @Test func aShortBufferIsRejectedAndTheTargetKept() throws {
        let converter = try RawPictureConverter(fourcc: .yuyv, width: 64, height: 32, targetWidth: 64, targetHeight: 32)
        var target = YUV420Image(width: 64, height: 32, strideAlignment: RawPictureConverter.strideAlignment)
        let before = target
        let short = [UInt8](repeating: 0, count: 64 * 2 * 31)
        #expect(throws: FFmpegError.self) {
            try short.withUnsafeBytes { try converter.convert($0, bytesPerLine: 128, into: &target) }
        }
        #expect(target == before)
    }

    /// `image` laid out as a V4L2 single-planar buffer of `fourcc` with padded rows.
    static func cameraBytes(_ image: YUV420Image, fourcc: FourCC, bytesPerLine: Int) -> [UInt8] {
        let height = image.height, chromaRows = image.chromaHeight, chromaWidth = image.chromaWidth
        var bytes = [UInt8](repeating: 0xEE, count: bytesPerLine * height * 2)
        for row in 0..<height {
            for column in 0..<image.width { bytes[row * bytesPerLine + column] = image.luma(column, row) }
        }
        let chroma = bytesPerLine * height
        for row in 0..<chromaRows {
            for column in 0..<chromaWidth {
                let cb = image.cb[row * image.chromaStride + column], cr = image.cr[row * image.chromaStride + column]
                switch fourcc {
                case .nv12, .nv21:
                    let at = chroma + row * bytesPerLine + 2 * column
                    bytes[at] = fourcc == .nv12 ? cb : cr
                    bytes[at + 1] = fourcc == .nv12 ? cr : cb
                default:
                    let stride = bytesPerLine / 2
                    let first = chroma + row * stride + column, second = chroma + stride * chromaRows + row * stride + column
                    bytes[first] = fourcc == .yu12 ? cb : cr
                    bytes[second] = fourcc == .yu12 ? cr : cb
                }
            }
        }
        return bytes
    }
}
