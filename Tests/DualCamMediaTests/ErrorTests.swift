import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation
import Glibc
import Testing

@Suite struct ErrorTests {
    @Test func missingFileNamesThePath() throws {
        MediaLog.setQuiet()
        let path = "/nonexistent/dualcam/segment-7.ts"
        let error = try #require(throws: FFmpegError.self) { try MediaDemuxer(path: path) }
        #expect(error.path == path)
        #expect(error.call == "avformat_open_input")
        #expect(error.posixErrno == ENOENT)
        #expect(error.description.contains(path))
        #expect(error.description.contains("No such file"))
        #expect(throws: FFmpegError.self) { try MediaProbe.probe(path: path) }
    }

    @Test func unwritableOutputsNameThePath() throws {
        MediaLog.setQuiet()
        let parameters = CodecParameters(codecName: "h264", width: 320, height: 240)
        let path = "/nonexistent/dualcam/out.ts"
        let segment = try #require(throws: FFmpegError.self) { try SegmentWriter(path: path, parameters: parameters) }
        #expect(segment.path == path && segment.call == "avio_open")
        let mp4 = try #require(throws: FFmpegError.self) {
            try MP4Remuxer(outputPath: "/nonexistent/x.mp4", parameters: parameters, creationTimeUnixSeconds: nil)
        }
        #expect(mp4.path == "/nonexistent/x.mp4")
    }

    @Test func notAMediaFileIsAnError() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let path = folder.file("garbage.ts")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x42, count: 4096)))
        let error = try #require(throws: FFmpegError.self) { try MediaDemuxer(path: path) }
        #expect(error.path == path)
    }

    @Test func badEncoderSettingsAreRefused() throws {
        MediaLog.setQuiet()
        var settings = Encoding.settings()
        settings.encoder = "no-such-encoder"
        let error = try #require(throws: FFmpegError.self) { try VideoEncoder(settings: settings) }
        #expect(error.description.contains("no-such-encoder"))
        #expect(throws: FFmpegError.self) {
            try VideoEncoder(settings: VideoEncoderSettings(width: 321, height: 240, rate: .fps30, gopFrames: 30))
        }
        let encoder = try VideoEncoder(settings: Encoding.settings())
        #expect(throws: FFmpegError.self) {
            try encoder.encode(YUV420Image(width: 64, height: 64), ptsNanoseconds: 0, forceKeyframe: true)
        }
        _ = try encoder.encode(YUV420Image(width: 320, height: 240), ptsNanoseconds: 5, forceKeyframe: true)
        #expect(throws: FFmpegError.self) {
            try encoder.encode(YUV420Image(width: 320, height: 240), ptsNanoseconds: 5, forceKeyframe: false)
        }
        #expect(throws: FFmpegError.self) { try VideoDecoder(parameters: CodecParameters(codecName: "nonsense", width: 2, height: 2)) }
    }
}
