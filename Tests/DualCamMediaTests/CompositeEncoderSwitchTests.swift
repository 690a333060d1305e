import DualCamCore
import DualCamMedia
import Foundation
import Testing

/// The live composite stepping to another preset mid-file (`auto`, issue 19): one MP4
/// written by one `MP4VideoWriter` whose encoder is replaced at keyframes. Every frame
/// must decode, in libavcodec and in the ffmpeg command players are built on.
@Suite struct CompositeEncoderSwitchTests {
    /// 90 frames at 30 fps, switching at frames 30 and 60 (keyframes of a 30-frame GOP).
    func write(switches: [Int: String], start: String = "ultrafast") throws -> (path: String, writer: MP4VideoWriter, folder: TemporaryFolder) {
        let folder = try TemporaryFolder()
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
        var keyframes: [Int] = []
        try MediaProbe.forEachFrame(path: path) { frame in
            let psnr = TestPictures.lumaPSNR(frame.image, TestPictures.moving(width: Encoding.width, height: Encoding.height, frame: frames))
            #expect(psnr > 35, "frame \(frames): \(psnr) dB")
            frames += 1
        }
        #expect(frames == 90)
        // The ffmpeg command decodes every frame without an error, and its timestamps run
        // one frame apart through both switches (no gap, no repeat).
        let decode = try Self.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.output.isEmpty, "\(decode.output)")
        let probe = try Self.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,flags",
                                                       "-of", "csv=p=0", path])
        let rows = probe.output.split(separator: "\n").map { $0.split(separator: ",") }
        #expect(rows.count == 90)
        let times = rows.compactMap { Double($0[0]) }
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 1.0 / 30) < 0.001, "\(a) → \(b)") }
        for (k, row) in rows.enumerated() where row.count > 1 && row[1].hasPrefix("K") { keyframes.append(k) }
        #expect([0, 30, 60].allSatisfy(keyframes.contains), "keyframes at \(keyframes)")
    }

    @Test func oneEncoderThroughoutKeepsAvc1() throws {
        MediaLog.setQuiet()
        let (path, writer, folder) = try write(switches: [30: "ultrafast"])
        defer { folder.remove() }
        // A switch to the preset in use is no switch.
        #expect(!writer.parameterSetsChange)
        #expect(try MP4SampleEntry.types(path: path) == ["avc1"])
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
