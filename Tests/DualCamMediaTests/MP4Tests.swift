import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation
import Testing

@Suite struct MP4Tests {
    /// 12 ms start, 30 frames, a gap of 5 missing frames, 25 more; keyframe every 30.
    static let timestamps: [Int64] = (Array(0..<30) + Array(35..<60)).map {
        12_000_000 + Encoding.rate.instant(ofFrame: Int64($0))
    }

    @Test func remuxKeepsEveryTimestampOffsetAndGap() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let timestamps = MP4Tests.timestamps
        let (parameters, packets) = try Encoding.encode(timestamps: timestamps) { $0 % 30 == 0 }
        let segments = try Encoding.writeSegments(packets, parameters: parameters, in: folder)
        #expect(segments.count == 2)

        let output = folder.file("camera.mp4")
        let created: Int64 = 1_700_000_000
        let remuxer = try MP4Remuxer(outputPath: output, parameters: parameters, creationTimeUnixSeconds: created)
        for (path, _) in segments { try remuxer.append(segmentAt: path) }
        try remuxer.finish()
        #expect(remuxer.packetCount == 55 && remuxer.droppedPacketCount == 0)

        let probe = try MediaProbe.probe(path: output)
        #expect(probe.codecName == "h264")
        #expect(probe.width == 320 && probe.height == 240)
        #expect(probe.frameCount == timestamps.count)
        #expect(probe.keyframeCount == 2)
        #expect(probe.frameTimestampsNanoseconds.map(\.ticks90k) == timestamps.map(\.ticks90k))
        #expect(abs(probe.frameTimestampsSeconds[0] - 0.012) < 1e-6)
        let expectedEnd = Double(timestamps.last! + Encoding.rate.periodNanoseconds) / 1e9
        #expect(abs(probe.durationSeconds - expectedEnd) < 0.001, "duration \(probe.durationSeconds) vs \(expectedEnd)")
        #expect(probe.creationTime?.hasPrefix("2023-11-14T22:13:20") == true, "\(probe.creationTime ?? "nil")")

        // Remuxed, not re-encoded: the payloads are bit-identical to the encoder's apart
        // from the container framing, so decoding gives the same pictures.
        var frames = 0
        try MediaProbe.forEachFrame(path: output) { frame in
            let psnr = TestPictures.lumaPSNR(frame.image, TestPictures.moving(width: 320, height: 240, frame: frames))
            #expect(psnr > 35)
            frames += 1
        }
        #expect(frames == timestamps.count)
        #expect(try isFastStart(output))
    }

    /// A free-running camera's first frame lands anywhere in its period, not on a whole
    /// millisecond: the file must keep that start to the tick. The muxer's edit list
    /// counts the start in the movie's timescale (1000 by default), which cut it down to
    /// the millisecond, so every free-running camera's clock truth read up to 1 ms (a
    /// mean of 0.5 ms) late.
    @Test func aStartBetweenMillisecondsIsKeptToTheTick() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let timestamps = (0..<10).map { 20_587_000 + Encoding.rate.instant(ofFrame: Int64($0)) }
        let (parameters, packets) = try Encoding.encode(timestamps: timestamps) { $0 == 0 }
        let segments = try Encoding.writeSegments(packets, parameters: parameters, in: folder)
        let output = folder.file("free-run.mp4")
        let remuxer = try MP4Remuxer(outputPath: output, parameters: parameters, creationTimeUnixSeconds: nil)
        for (path, _) in segments { try remuxer.append(segmentAt: path) }
        try remuxer.finish()
        let probe = try MediaProbe.probe(path: output)
        #expect(probe.frameTimestampsNanoseconds.map(\.ticks90k) == timestamps.map(\.ticks90k),
                "\(probe.frameTimestampsNanoseconds.prefix(2)) vs \(timestamps.prefix(2))")
    }

    @Test func remuxingTheSameSegmentTwiceDropsTheRepeat() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let timestamps = (0..<10).map { Encoding.rate.instant(ofFrame: Int64($0)) }
        let (parameters, packets) = try Encoding.encode(timestamps: timestamps) { $0 == 0 }
        let segments = try Encoding.writeSegments(packets, parameters: parameters, in: folder)
        let output = folder.file("twice.mp4")
        let remuxer = try MP4Remuxer(outputPath: output, parameters: parameters, creationTimeUnixSeconds: nil)
        try remuxer.append(segmentAt: segments[0].0)
        try remuxer.append(segmentAt: segments[0].0)
        try remuxer.finish()
        #expect(remuxer.droppedPacketCount == 10)
        let probe = try MediaProbe.probe(path: output)
        #expect(probe.frameCount == 10)
        #expect(abs(probe.durationSeconds - 10.0 / 30) < 0.001)
    }

    @Test func remuxerWithoutExtradataTakesItFromTheSegment() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let timestamps = (0..<5).map { Encoding.rate.instant(ofFrame: Int64($0)) }
        let (encoded, packets) = try Encoding.encode(timestamps: timestamps) { $0 == 0 }
        let segments = try Encoding.writeSegments(packets, parameters: encoded, in: folder)
        var parameters = encoded
        parameters.extradata = []
        let output = folder.file("noextra.mp4")
        let remuxer = try MP4Remuxer(outputPath: output, parameters: parameters, creationTimeUnixSeconds: nil)
        try remuxer.append(segmentAt: segments[0].0)
        try remuxer.finish()
        var frames = 0
        try MediaProbe.forEachFrame(path: output) { _ in frames += 1 }
        #expect(frames == 5)
    }

    @Test func videoWriterProducesAPlayableFile() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let output = folder.file("combined.mp4")
        let writer = try MP4VideoWriter(outputPath: output, settings: Encoding.settings(gop: 30),
                                        creationTimeUnixSeconds: 1_700_000_000)
        let timestamps = (0..<45).map { 12_000_000 + Encoding.rate.instant(ofFrame: Int64($0)) }
        for (index, pts) in timestamps.enumerated() {
            try writer.write(TestPictures.moving(width: 320, height: 240, frame: index), ptsNanoseconds: pts)
        }
        try writer.finish()
        let probe = try MediaProbe.probe(path: output)
        #expect(probe.formatName.contains("mp4"))
        #expect(probe.codecName == "h264")
        #expect(probe.frameCount == 45)
        #expect(probe.keyframeCount == 2)
        #expect(probe.frameTimestampsNanoseconds.map(\.ticks90k) == timestamps.map(\.ticks90k))
        let expectedEnd = Double(timestamps.last! + Encoding.rate.periodNanoseconds) / 1e9
        #expect(abs(probe.durationSeconds - expectedEnd) < 0.001, "duration \(probe.durationSeconds) vs \(expectedEnd)")
        #expect(probe.creationTime != nil)
        #expect(try isFastStart(output))
    }

    /// faststart puts the moov box before mdat.
    private func isFastStart(_ path: String) throws -> Bool {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let moov = data.range(of: Data("moov".utf8)), let mdat = data.range(of: Data("mdat".utf8)) else { return false }
        return moov.lowerBound < mdat.lowerBound
    }
}
