import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation
import Testing

/// The live composite stepping to another preset mid-file (`auto`, issue 19): one MP4
/// written by one `MP4VideoWriter` whose encoder is replaced at keyframes. Every frame
/// must decode.
@Suite struct CompositeEncoderSwitchTests {
    /// 90 frames at 30 fps, switching at frames 30 and 60 (keyframes of a 30-frame GOP).
    func write(switches: [Int: String], start: String = "ultrafast") throws -> (path: String, writer: MP4VideoWriter, folder: TemporaryFolder) {
        let folder = try TemporaryFolder("media")
        let path = folder.file("combined.mp4")
        var settings = Encoding.settings(gop: 30)
        settings.preset = start
        let writer = try MP4VideoWriter(outputPath: path, settings: settings, creationTimeUnixSeconds: nil)
        for index in 0..<90 {
            if let preset = switches[index] { try writer.switchEncoder(preset: preset) }
            try writer.write(TestPictures.moving(width: Encoding.width, height: Encoding.height, frame: index),
                             ptsNanoseconds: Encoding.rate.instant(ofFrame: Int64(index)))
        }
        try writer.finish()
        return (path, writer, folder)
    }

    @Test func switchedPresetsMakeAnAvc3FileWhoseEveryFrameDecodes() throws {
        MediaLog.setQuiet()
        // ultrafast is constrained baseline, medium high profile with CABAC: other SPS/PPS.
        let (path, writer, folder) = try write(switches: [30: "medium", 60: "ultrafast"])
        defer { folder.remove() }
        #expect(writer.parameterSetsChange)
        #expect(writer.settings.preset == "ultrafast")
        #expect(try MP4SampleEntry.types(path: path) == ["avc3"])
        var frames = 0
        try MediaProbe.forEachFrame(path: path) { frame in
            let psnr = TestPictures.lumaPSNR(frame.image, TestPictures.moving(width: Encoding.width, height: Encoding.height, frame: frames))
            #expect(psnr > 35, "frame \(frames): \(psnr) dB")
            frames += 1
        }
        #expect(frames == 90)
        // The ffmpeg command's view (packets, keyframes, its own decoder) is in
        // CompositeAutoTests, on a file the live composite's renderer wrote.
    }

    @Test func oneEncoderThroughoutKeepsAvc1() throws {
        MediaLog.setQuiet()
        let (path, writer, folder) = try write(switches: [30: "ultrafast"])
        defer { folder.remove() }
        // A switch to the preset in use is no switch.
        #expect(!writer.parameterSetsChange)
        #expect(try MP4SampleEntry.types(path: path) == ["avc1"])
    }
}
