import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// `--audio file:`: a sound file played as a node's microphone must come out of the
    /// recording with its first sample at T0, through the same clock mapping and drift
    /// correction a card's sound gets. Each file holds 1 kHz bursts at known seconds, off
    /// the whole seconds (where the synthetic source's would be), different per node; a
    /// burst's onset in a recording must sit within 2 ms of its second in the file.
    @Suite struct SoundFileTests {
        static let limit: Int64 = 2_000_000

        /// A WAV of `seconds` of silence with a 20 ms 1 kHz burst (−12 dBFS, starting at
        /// phase 0, as `BurstOnsets` expects) at each of `bursts`, the same in every channel.
        static func writeBursts(_ path: String, seconds: Double, rate: Int, channels: Int, bursts: [Double]) throws {
            let frames = Int(seconds * Double(rate))
            var samples = [Float](repeating: 0, count: frames * channels)
            for start in bursts {
                let first = Int((start * Double(rate)).rounded(.up))
                for i in first..<min(frames, first + rate / 50) {
                    let t = Double(i) / Double(rate) - start
                    let value = ToneBurst.amplitude * Float(sin(2 * Double.pi * ToneBurst.frequencyHz * t))
                    for ch in 0..<channels { samples[i * channels + ch] = value }
                }
            }
            let wav = try WAVWriter(path: path, sampleRate: rate, channels: channels, bits: 16)
            try wav.write(samples, sourceChannels: channels, atPosition: 0)
            try wav.finish()
        }

        /// Each expected burst (s from T0) has an onset within the limit in `track`.
        static func expectBursts(_ expected: [Double], in samples: [Float], startNanoseconds: Int64, _ name: String) {
            let found = BurstOnsets.find(samples: samples, sampleRate: 48_000).map { $0 + startNanoseconds }
            #expect(found.count == expected.count, "\(name): onsets at \(found) ns, expected \(expected) s")
            for (onset, second) in zip(found, expected) {
                let error = onset - Int64((second * 1e9).rounded())
                #expect(abs(error) <= limit, "\(name): burst of \(second) s found at \(onset) ns (\(error) ns off)")
            }
        }

        /// The file's sound after its end is silence, to the end of the recording.
        static func expectSilence(_ samples: [Float], after seconds: Double, _ name: String) {
            let from = Int(seconds * 48_000)
            guard from < samples.count else { return }
            let loudest = samples[from...].map(\.magnitude).max() ?? 0
            #expect(loudest < 0.001, "\(name): \(loudest) after the file's end")
        }

        func folder(_ name: String) -> String { NSTemporaryDirectory() + "dualcam-soundfile-\(name)-\(getpid())" }

        /// One node on its own (`record`), its card 60 ppm fast: the bursts in place, then
        /// silence once the file has ended, and the agent says so once.
        @Test func aLoneNodePlaysItsFileFromTheStartThenSilence() throws {
            let out = folder("record")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: out) }
            let bursts = [0.40, 1.15]
            try Self.writeBursts(out + "/voice.wav", seconds: 1.5, rate: 48_000, channels: 1, bursts: bursts)
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--duration", "3", "--out", out,
                                                    "--size", "320x180", "--audio", "file:" + out + "/voice.wav",
                                                    "--simulate-audio-rate-ppm", "60"])
            #expect(agent.finish(seconds: 60) == 0, "\(agent.err.all().suffix(2000))")
            let stdout = agent.out.all()
            let line = try #require(stdout.split(separator: "\n").first { $0.hasPrefix("file: ") }, "\(stdout)")
            let track = try #require(try AudioTrackReader.read(path: String(line.dropFirst(6))))
            Self.expectBursts(bursts, in: track.mono, startNanoseconds: track.startNanoseconds, "record")
            Self.expectSilence(track.mono, after: 1.55 - Double(track.startNanoseconds) / 1e9, "record")
            let ended = agent.err.all().components(separatedBy: "has ended").count - 1
            #expect(ended == 1, "the end of the file logged \(ended) times: \(agent.err.all().suffix(2000))")
        }

        /// Two agents over the real protocol, the guest's clock 37 ms off and 80 ppm fast,
        /// its card 50 ppm off that clock and its file 44.1 kHz stereo: each node's files
        /// (MP4 and WAV) hold that node's own file, placed at T0. At 320x240: the sound is
        /// the point, and so the suite runs beside others (deploy/test.sh).
        @Test func twoNodesEachRecordTheirOwnFileAtT0() throws {
            let out = folder("demo")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: out) }
            let host = [0.25, 1.30, 2.45, 3.60], guest = [0.70, 1.85, 3.15]
            try Self.writeBursts(out + "/host.wav", seconds: 4, rate: 48_000, channels: 1, bursts: host)
            try Self.writeBursts(out + "/guest.wav", seconds: 4, rate: 44_100, channels: 2, bursts: guest)
            let run = try DemoRun.run(["demo", "--duration", "5", "--out", out + "/library", "--state", out + "/coordinator-state",
                                       "--size", "320x240", "--audio-files", out + "/host.wav," + out + "/guest.wav",
                                       "--guest-clock-offset-ms", "37", "--guest-clock-skew-ppm", "80",
                                       "--guest-audio-rate-ppm", "50"])
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            let wavs = run.stdout.split(separator: "\n").compactMap { line in
                line.hasPrefix("Sound (uncompressed, for editors): ") ? String(line.split(separator: " ").last!) : nil
            }
            try #require(wavs.count == 2, "\(run.stdout)")
            for wav in wavs {
                let name = (wav as NSString).lastPathComponent
                let expected = name.hasPrefix("DualCam_Host_") ? host : guest
                // The node's WAV starts at T0.
                let fromWAV = try SoundFileReader(path: wav, sampleRate: 48_000, channels: 1).read(frames: 48_000 * 60)
                Self.expectBursts(expected, in: fromWAV, startNanoseconds: 0, name)
                Self.expectSilence(fromWAV, after: 4.05, name)
                let mp4 = (wav as NSString).deletingPathExtension + ".mp4"
                let fromMP4 = try #require(try AudioTrackReader.read(path: mp4))
                Self.expectBursts(expected, in: fromMP4.mono, startNanoseconds: fromMP4.startNanoseconds, name + " (MP4)")
            }
        }

        /// A file that cannot play is refused before anything is recorded, saying what to do.
        @Test func aMissingFileOrAWrongCountIsRefusedAtOnce() throws {
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--duration", "1",
                                                    "--audio", "file:/nonexistent/voice.wav"])
            #expect(agent.finish(seconds: 30) != 0)
            let said = agent.err.all()
            #expect(said.contains("there is no such file") && said.contains("give a sound file"), "\(said)")
            let out = folder("count")
            defer { try? FileManager.default.removeItem(atPath: out) }
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try Self.writeBursts(out + "/one.wav", seconds: 1, rate: 48_000, channels: 1, bursts: [])
            let run = try DemoRun.run(["demo", "--duration", "2", "--out", out, "--state", out + "/state", "--audio-files", out + "/one.wav"])
            #expect(run.exitCode != 0)
            #expect(run.stderr.contains("names 1 file for 2 agents"), "\(run.stderr.suffix(2000))")
        }
    }
}
