import DualCamCore
import Foundation
import DualCamMedia
import DualCamTestSupport
import Testing

@Suite struct SegmentTests {
    @Test func encodedPacketsKeepCallerTimestampsAndForcedKeyframes() throws {
        MediaLog.setQuiet()
        let timestamps = (0..<60).map { Encoding.rate.instant(ofFrame: Int64($0)) + 1_234 }
        let (parameters, packets) = try Encoding.encode(timestamps: timestamps) { $0 % 30 == 0 }
        #expect(parameters.codecName == "h264")
        #expect(!parameters.extradata.isEmpty)
        #expect(packets.count == 60)
        #expect(packets.map(\.ptsNanoseconds) == timestamps)
        #expect(packets.allSatisfy { $0.ptsNanoseconds == $0.dtsNanoseconds })
        #expect(packets.indices.filter { packets[$0].isKeyframe } == [0, 30])
        #expect(packets.allSatisfy { $0.durationNanoseconds == Encoding.rate.periodNanoseconds })
        // forced-idr: the forced keyframe is a real IDR (NAL 5) with SPS/PPS (7, 8) in-band.
        #expect(Set(nalTypes(packets[30].data)).isSuperset(of: [5, 7, 8]))
        #expect(!nalTypes(packets[29].data).contains(5))
    }

    /// An agent back in a take 7 s after T0 writes a segment that holds 7 s of sound
    /// before its first picture. Probed as libavformat's defaults probe (5 s, 5 MB), the
    /// video came out without a picture size and the camera's whole file was lost.
    @Test func aSegmentWhosePicturesStartSecondsAfterItsSoundIsStillRead() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder()
        let late: Int64 = 7_400_000_000
        let timestamps = (0..<18).map { late + Encoding.rate.instant(ofFrame: Int64($0)) }
        let (parameters, pictures) = try Encoding.encode(timestamps: timestamps) { $0 == 0 }
        let aac = try AudioEncoder(sampleRate: 48_000, channels: 1)
        let pcm = try AudioEncoder(codec: .smpte302m(bits: 16), sampleRate: 48_000, channels: 1)
        let path = folder.file("rejoined.ts")
        let writer = try SegmentWriter(path: path, parameters: parameters, audio: aac.parameters, lossless: pcm.parameters)
        let tone = (0..<48_000 / 10).map { Float(sin(Double($0) * 0.05) * 0.3) }
        for _ in 0..<80 {
            for packet in try aac.encode(tone) where packet.ptsNanoseconds >= 0 { try writer.writeAudio(packet) }
            for packet in try pcm.encode(tone) { try writer.writeAudio(packet, lossless: true) }
        }
        for picture in pictures { try writer.write(picture) }
        _ = try writer.finish()

        let found = try MediaDemuxer(path: path).videoParameters
        #expect(found.width == parameters.width && found.height == parameters.height)
        let remuxer = try MP4Remuxer(outputPath: folder.file("camera.mp4"), parameters: found, creationTimeUnixSeconds: nil)
        try remuxer.append(segmentAt: path)
        try remuxer.finish()
        #expect(remuxer.packetCount == pictures.count)
    }

    @Test(arguments: [(String?.none, 23, Int?.none), ("zerolatency", 23, 400_000)])
    func lookaheadAndBitrateModesKeepEveryFrameWithoutReordering(tune: String?, crf: Int, bitrate: Int?) throws {
        MediaLog.setQuiet()
        let settings = VideoEncoderSettings(width: 64, height: 48, rate: .fps25, preset: "veryfast", tune: tune,
                                            crf: crf, bitrate: bitrate, gopFrames: 12, threads: 2)
        let encoder = try VideoEncoder(settings: settings)
        let timestamps = (0..<30).map { FrameRate.fps25.instant(ofFrame: Int64($0)) }
        var packets: [EncodedPacket] = []
        for (index, pts) in timestamps.enumerated() {
            packets += try encoder.encode(TestPictures.moving(width: 64, height: 48, frame: index),
                                          ptsNanoseconds: pts, forceKeyframe: false)
        }
        packets += try encoder.flush()
        #expect(packets.map(\.ptsNanoseconds) == timestamps)
        #expect(packets.allSatisfy { $0.dtsNanoseconds == $0.ptsNanoseconds })
        // gopFrames is the maximum keyframe interval, and scene cuts add none.
        #expect(packets.indices.filter { packets[$0].isKeyframe } == [0, 12, 24])
        #expect(try encoder.flush().isEmpty)
    }

    @Test func jitteredTimestampsAtNTSCRateSurviveExactly() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let rate = FrameRate.ntsc30
        // Capture jitter of up to ±9 ms, including two frames that round to the same slot.
        let jitter: [Int64] = [0, 9_000_000, -9_000_000, 4_000_000, 17_000_000, -3_000_000, 0, 1, -1, 5]
        let timestamps = jitter.enumerated().map { 500_000_000 + rate.instant(ofFrame: Int64($0.offset)) + $0.element }
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: 64, height: 48, rate: rate, gopFrames: 300))
        var packets: [EncodedPacket] = []
        for (index, pts) in timestamps.enumerated() {
            packets += try encoder.encode(TestPictures.moving(width: 64, height: 48, frame: index),
                                          ptsNanoseconds: pts, forceKeyframe: index == 0)
        }
        packets += try encoder.flush()
        #expect(packets.map(\.ptsNanoseconds) == timestamps)
        #expect(throws: FFmpegError.self) {
            try encoder.encode(YUV420Image(width: 64, height: 48), ptsNanoseconds: 2_000_000_000, forceKeyframe: false)
        }

        let path = folder.file("ntsc.ts")
        let writer = try SegmentWriter(path: path, parameters: encoder.parameters)
        for packet in packets { try writer.write(packet) }
        let info = try writer.finish()
        #expect(info.firstPtsNanoseconds == timestamps[0])
        #expect(info.durationNanoseconds == timestamps.last! + rate.periodNanoseconds - timestamps[0])
        #expect(try writer.finish() == info)
        let probe = try MediaProbe.probe(path: path)
        #expect(probe.frameTimestampsNanoseconds.map(\.ticks90k) == timestamps.map(\.ticks90k))
    }

    @Test func segmentsReadBackWithExactTimestampsAndKeyframeFirst() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let timestamps = (0..<60).map { Encoding.rate.instant(ofFrame: Int64($0)) }
        let (parameters, packets) = try Encoding.encode(timestamps: timestamps) { $0 % 30 == 0 }
        let segments = try Encoding.writeSegments(packets, parameters: parameters, in: folder)
        #expect(segments.count == 2)

        var offset = 0
        for (path, info) in segments {
            let written = Array(packets[offset..<offset + info.frameCount])
            offset += info.frameCount
            #expect(info.frameCount == 30)
            #expect(info.byteCount > 0)
            #expect(info.firstPtsNanoseconds == written.first!.ptsNanoseconds)
            #expect(info.lastPtsNanoseconds == written.last!.ptsNanoseconds)
            #expect(info.durationNanoseconds == written.last!.ptsNanoseconds + Encoding.rate.periodNanoseconds
                    - written.first!.ptsNanoseconds)

            let demuxer = try MediaDemuxer(path: path)
            #expect(demuxer.videoParameters.codecName == "h264")
            #expect(demuxer.videoParameters.width == 320 && demuxer.videoParameters.height == 240)
            var readBack: [EncodedPacket] = []
            while let packet = try demuxer.nextVideoPacket() { readBack.append(packet) }
            #expect(readBack.count == written.count)
            // The muxer's default 0.7 s mux delay would show up here as +63000 ticks.
            #expect(readBack.map(\.ptsNanoseconds.ticks90k) == written.map(\.ptsNanoseconds.ticks90k))
            #expect(readBack.map(\.dtsNanoseconds.ticks90k) == written.map(\.dtsNanoseconds.ticks90k))
            #expect(readBack.first?.isKeyframe == true)
            #expect(readBack.dropFirst().allSatisfy { !$0.isKeyframe })

            let probe = try MediaProbe.probe(path: path)
            #expect(probe.formatName == "mpegts")
            #expect(probe.frameCount == 30 && probe.keyframeCount == 1)
            #expect(probe.frameTimestampsNanoseconds.map(\.ticks90k) == written.map(\.ptsNanoseconds.ticks90k))
        }
        // The first segment starts at pts 0 and still reads back at 0.
        #expect(try MediaDemuxer(path: segments[0].0).nextVideoPacket()?.ptsNanoseconds == 0)
    }

    @Test func segmentsDecodeOnTheirOwnAndMatchTheInput() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let timestamps = (0..<60).map { Encoding.rate.instant(ofFrame: Int64($0)) }
        let (parameters, packets) = try Encoding.encode(timestamps: timestamps) { $0 % 30 == 0 }
        let segments = try Encoding.writeSegments(packets, parameters: parameters, in: folder)

        // The second segment alone, without the first one's parameter sets.
        var frames: [DecodedFrame] = []
        try MediaProbe.forEachFrame(path: segments[1].0) { frames.append($0) }
        #expect(frames.count == 30)
        for (offset, frame) in frames.enumerated() {
            let index = 30 + offset
            #expect(frame.ptsNanoseconds.ticks90k == timestamps[index].ticks90k)
            let original = TestPictures.moving(width: 320, height: 240, frame: index)
            let psnr = TestPictures.lumaPSNR(original, frame.image)
            #expect(psnr > 35, "frame \(index): \(psnr) dB")
        }
    }

    @Test func decoderTakesEncoderPacketsDirectly() throws {
        MediaLog.setQuiet()
        let timestamps = (0..<10).map { Encoding.rate.instant(ofFrame: Int64($0)) }
        let (parameters, packets) = try Encoding.encode(timestamps: timestamps) { $0 == 0 }
        let decoder = try VideoDecoder(parameters: parameters)
        var frames: [DecodedFrame] = []
        for packet in packets { frames += try decoder.decode(packet) }
        frames += try decoder.flush()
        #expect(frames.map(\.ptsNanoseconds) == timestamps)
        #expect(frames.allSatisfy { $0.image.width == 320 && $0.image.height == 240 })
    }

    @Test func negativeAndNonIncreasingTimestampsAreRefused() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let (parameters, packets) = try Encoding.encode(timestamps: [0, 33_333_333]) { $0 == 0 }
        let writer = try SegmentWriter(path: folder.file("bad.ts"), parameters: parameters)
        var negative = packets[0]
        negative.ptsNanoseconds = -1
        negative.dtsNanoseconds = -1
        #expect(throws: FFmpegError.self) { try writer.write(negative) }
        try writer.write(packets[0])
        #expect(throws: FFmpegError.self) { try writer.write(packets[0]) }
        let info = try writer.finish()
        #expect(info.frameCount == 1)
        #expect(info.durationNanoseconds == Encoding.rate.periodNanoseconds)
    }
}

/// NAL unit types of an Annex B H.264 access unit.
func nalTypes(_ data: [UInt8]) -> [Int] {
    var types: [Int] = []
    var index = 0
    while index + 3 < data.count {
        if data[index] == 0 && data[index + 1] == 0 && data[index + 2] == 1 {
            types.append(Int(data[index + 3] & 0x1F))
            index += 3
        } else {
            index += 1
        }
    }
    return types
}
