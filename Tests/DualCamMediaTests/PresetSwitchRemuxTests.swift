import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation
import Testing

/// A camera whose encoder stepped to another preset mid-take (`--preset auto`): its
/// segments carry different SPS/PPS, and its file must still play every frame.
@Suite struct PresetSwitchRemuxTests {
    /// Segments of 30 frames, each from a fresh encoder with its own preset, as the agent
    /// writes them after a switch (ultrafast is baseline, medium high profile with 3 refs).
    func segments(presets: [String], in folder: TemporaryFolder) throws -> (CodecParameters, [String]) {
        var paths: [String] = []
        var first: CodecParameters?
        for (s, preset) in presets.enumerated() {
            var settings = Encoding.settings(gop: 30)
            settings.preset = preset
            let encoder = try VideoEncoder(settings: settings)
            var packets: [EncodedPacket] = []
            for k in 0..<30 {
                let index = s * 30 + k
                packets += try encoder.encode(TestPictures.moving(width: Encoding.width, height: Encoding.height, frame: index),
                                              ptsNanoseconds: Encoding.rate.instant(ofFrame: Int64(index)), forceKeyframe: k == 0)
            }
            packets += try encoder.flush()
            let path = folder.file("segment-\(s).ts")
            let writer = try SegmentWriter(path: path, parameters: encoder.parameters)
            for packet in packets { try writer.write(packet) }
            _ = try writer.finish()
            paths.append(path)
            first = first ?? encoder.parameters
        }
        return (first!, paths)
    }

    func remux(_ presets: [String]) throws -> (path: String, remuxer: MP4Remuxer, folder: TemporaryFolder) {
        let folder = try TemporaryFolder("media")
        let (parameters, paths) = try segments(presets: presets, in: folder)
        let output = folder.file("camera.mp4")
        let remuxer = try MP4Remuxer(outputPath: output, parameters: parameters, creationTimeUnixSeconds: nil)
        for path in paths { try remuxer.append(segmentAt: path) }
        try remuxer.finish()
        return (output, remuxer, folder)
    }

    func sampleEntryTypes(_ path: String) throws -> Set<String> { Set(try MP4SampleEntry.types(path: path)) }

    @Test func changedParameterSetsMakeAnAvc3FileWhoseEveryFrameDecodes() throws {
        MediaLog.setQuiet()
        let (path, remuxer, folder) = try remux(["ultrafast", "medium", "ultrafast"])
        defer { folder.remove() }
        #expect(remuxer.parameterSetsChange)
        #expect(try sampleEntryTypes(path) == ["avc3"])
        var frames = 0
        try MediaProbe.forEachFrame(path: path) { frame in
            let psnr = TestPictures.lumaPSNR(frame.image, TestPictures.moving(width: Encoding.width, height: Encoding.height,
                                                                              frame: frames))
            #expect(psnr > 35, "frame \(frames): \(psnr) dB")
            frames += 1
        }
        #expect(frames == 90)
    }

    @Test func oneEncoderThroughoutKeepsAvc1() throws {
        MediaLog.setQuiet()
        let (path, remuxer, folder) = try remux(["veryfast", "veryfast"])
        defer { folder.remove() }
        #expect(!remuxer.parameterSetsChange)
        #expect(try sampleEntryTypes(path) == ["avc1"])
    }
}
