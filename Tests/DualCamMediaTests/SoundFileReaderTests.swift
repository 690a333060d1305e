import DualCamMedia
import DualCamTestSupport
import Foundation
import Testing

/// Sound files in the formats people have (made by the ffmpeg CLI), read as a node's
/// microphone wants them: 48 kHz, its channel count, from the first sample on.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
struct SoundFileReaderTests {
    static let sine = ["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=1"]
    /// lavfi's sine is at 1/8 of full scale: ×4 puts it at half scale.
    static let mono = "volume=4"
    /// The same sine in both channels at full level (ffmpeg's own upmix would lower it 3 dB).
    static let stereo = "volume=4,pan=stereo|c0=c0|c1=c0"

    /// One second of `source` (a 1 kHz sine), `arguments` choosing the level and format.
    private func make(_ name: String, in folder: TemporaryFolder, source: [String] = sine, _ arguments: [String]) throws -> String {
        let path = folder.file(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-y"] + source + arguments + [path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return path
    }

    @Test(arguments: [
        ("stereo.wav", ["-af", stereo, "-c:a", "pcm_s16le"]),
        ("mono24.wav", ["-af", mono, "-ar", "22050", "-c:a", "pcm_s24le"]),
        ("voice.flac", ["-af", stereo]),
        ("voice.ogg", ["-af", mono, "-c:a", "libvorbis"]),
    ])
    func anyFormatComesOutAt48kHzMonoWithItsLengthAndLevel(_ name: String, _ encoding: [String]) throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let path = try make(name, in: folder, encoding)
        let reader = try SoundFileReader(path: path, sampleRate: 48_000, channels: 1)
        var samples: [Float] = []
        while true {
            let block = try reader.read(frames: 1000)
            samples += block
            if block.count < 1000 { break }
        }
        #expect(try reader.read(frames: 1000).isEmpty)
        // One second, give or take a lossy codec's priming and end trimming (Vorbis: ~3 ms).
        #expect(abs(samples.count - 48_000) <= 256, "\(name): \(samples.count) samples")
        // A stereo file is averaged, not summed: the sine keeps its level (RMS of 0.5·sin).
        let middle = samples[12_000..<36_000]
        let rms = (middle.map { Double($0) * Double($0) }.reduce(0, +) / Double(middle.count)).squareRoot()
        #expect(abs(rms - 0.5 / 2.squareRoot()) < 0.01, "\(name): RMS \(rms)")
        #expect(reader.durationSeconds.map { abs($0 - 1) < 0.05 } ?? true, "\(name): \(reader.durationSeconds ?? -1) s")
    }

    @Test func aFileThatCannotPlaySaysWhy() throws {
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        #expect(SoundFileReader.problem(path: folder.file("absent.wav")) == "there is no such file")
        try Data("not a sound".utf8).write(to: URL(fileURLWithPath: folder.file("notes.txt")))
        #expect(SoundFileReader.problem(path: folder.file("notes.txt"))?.contains("not a sound file") == true)
        let pictures = try make("pictures.mkv", in: folder, source: ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1"],
                                ["-c:v", "libx264"])
        #expect(SoundFileReader.problem(path: pictures) == "it has no sound")
        #expect(SoundFileReader.problem(path: folder.path) != nil)
    }
}
