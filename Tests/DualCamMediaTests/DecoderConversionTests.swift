import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation
import Testing

/// Files made by the ffmpeg CLI in formats our encoder never produces, to exercise the
/// decoder's libswscale conversion to yuv420p.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
struct DecoderConversionTests {
    private func make(_ name: String, in folder: TemporaryFolder, _ arguments: [String]) throws -> String {
        let path = folder.file(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10",
                             "-frames:v", "5"] + arguments + [path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return path
    }

    @Test(arguments: [
        ["-c:v", "libx264", "-pix_fmt", "yuv422p"],
        ["-c:v", "mjpeg", "-pix_fmt", "yuvj422p"],
        ["-c:v", "libx264", "-pix_fmt", "yuv420p10le"],
    ])
    func otherPixelFormatsComeOutAsYUV420(_ encoding: [String]) throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let path = try make("input.mkv", in: folder, encoding)
        var frames: [DecodedFrame] = []
        try MediaProbe.forEachFrame(path: path) { frames.append($0) }
        #expect(frames.count == 5)
        #expect(frames.allSatisfy { $0.image.width == 64 && $0.image.height == 48 })
        #expect(frames.map(\.ptsNanoseconds) == (0..<5).map { Int64($0) * 100_000_000 })
        // testsrc's top-left corner is not black: the conversion produced real pixels.
        let image = try #require(frames.first?.image)
        // 4:2:0 planes, rows possibly padded (the conversion writes into padded rows).
        #expect(image.chromaWidth == 32 && image.chromaHeight == 24)
        #expect(image.y.count >= image.lumaStride * 48 && image.cb.count >= image.chromaStride * 24
                && image.cr.count >= image.chromaStride * 24)
        #expect(Set((0..<48).flatMap { row in (0..<64).map { image.luma($0, row) } }).count > 10)
    }
}
