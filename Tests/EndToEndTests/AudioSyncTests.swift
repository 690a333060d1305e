import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// Lip sync measured from the outside: two agent processes with the DCTC pattern and
    /// its audio companion, the guest's clock 37 ms off and 80 ppm fast and its sound card
    /// 50 ppm off that clock. In every file each tone-burst onset must sit on the DCTC
    /// second crossing of the pictures (≤ 15 ms; it should be well under 1 ms), and the
    /// manifest's cross-correlation report must find the nodes together.
    @Suite struct AudioSyncTests {
        @Test func everyFileKeepsLipSyncAndTheManifestReportsIt() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-audio-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let seconds = 8
            let run = try DemoRun.run(["demo", "--duration", "\(seconds)", "--out", out, "--state", out + "/coordinator-state",
                                       "--size", "640x360", "--layout", "split-horizontal",
                                       "--guest-clock-offset-ms", "37", "--guest-clock-skew-ppm", "80",
                                       "--guest-audio-rate-ppm", "50"])
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            let files = run.mp4Files
            try #require(files.count == 3, "expected three files, got: \(run.stdout)")
            let limit: Int64 = 15_000_000
            for file in files {
                let name = (file as NSString).lastPathComponent
                var reader: (YUV420Image) -> UInt32 = { DCTC.read($0) }
                if name.hasPrefix("DualCam_Combined_") {
                    // The composite's sound is the mix; its pictures are read in the host's slot.
                    let composite = CompositeCodes(LayoutSpec(kind: .splitHorizontal), outputWidth: 640, outputHeight: 360,
                                                   sourceWidth: 640, sourceHeight: 360)
                    reader = { composite.read($0)[0] }
                }
                let m = try AVSyncProbe.measure(path: file, readCode: reader)
                // Every second of the session has its burst and its crossing, and they agree.
                #expect(m.offsetsNanoseconds.count >= seconds - 1, "\(name): \(m.offsetsNanoseconds.count) seconds matched")
                #expect(m.worstNanoseconds <= limit, "\(name): A/V offsets \(m.offsetsNanoseconds) ns")
            }
            let folder = ((files[0] as NSString).deletingLastPathComponent)
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json")))
            let report = try #require((manifest as? [String: Any])?["audioSync"] as? [[String: Any]])
            try #require(report.count == 1)
            let entry = report[0]
            #expect(entry["camera"] as? String == "Guest" && entry["reference"] as? String == "Host")
            for key in ["startOffsetNanoseconds", "endOffsetNanoseconds"] {
                let value = try #require(entry[key] as? Int64 ?? (entry[key] as? NSNumber)?.int64Value)
                #expect(abs(value) <= 2_000_000, "\(key) \(value) ns")
            }
            for key in ["startConfidence", "endConfidence"] {
                #expect((entry[key] as? Double ?? 0) > 0.8, "\(key) \(entry[key] ?? "missing")")
            }
            try checkSoundFiles(run: run, folder: folder, seconds: seconds)
            try checkRecomposeKeepsSound(out: out, folder: folder)
        }

        /// Each node's WAV starts at T0 and holds the same sound as its MP4, sample for
        /// sample in time: its bursts fall where the MP4's do.
        func checkSoundFiles(run: DemoRun, folder: String, seconds: Int) throws {
            let wavs = run.stdout.split(separator: "\n").compactMap { line in
                line.hasPrefix("Sound (uncompressed, for editors): ") ? String(line.split(separator: " ").last!) : nil
            }
            try #require(wavs.count == 2, "\(run.stdout)")
            for wav in wavs {
                let data = try Data(contentsOf: URL(fileURLWithPath: wav))
                let samples = stride(from: 44, to: data.count - 1, by: 2).map {
                    Float(Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)) / 32768
                }
                #expect(abs(samples.count - seconds * 48_000) <= 2048, "\(wav): \(samples.count) samples")
                let mp4 = (wav as NSString).deletingPathExtension + ".mp4"
                let track = try #require(try AudioTrackReader.read(path: mp4))
                // AAC's first 21 ms decode faded in: when T0 falls on a whole second (one
                // take in 30 at 30 fps) the burst sounding from T0 reads there as an onset,
                // which the WAV, holding it from its first sample, rightly skips.
                let fromMP4 = BurstOnsets.find(samples: track.mono, sampleRate: 48_000).map { $0 + track.startNanoseconds }
                    .filter { $0 >= 25_000_000 }
                let fromWAV = BurstOnsets.find(samples: samples, sampleRate: 48_000)
                #expect(fromWAV.count >= seconds - 1 && fromWAV.count == fromMP4.count, "\(wav): \(fromWAV) vs \(fromMP4)")
                for (a, b) in zip(fromWAV, fromMP4) { #expect(abs(a - b) < 1_000_000, "\(wav): burst at \(a) ns, MP4's at \(b) ns") }
            }
        }

        /// A re-render keeps the sound, mixed as asked, still in sync with the pictures.
        func checkRecomposeKeepsSound(out: String, folder: String) throws {
            let session = (folder as NSString).lastPathComponent
            let run = try SessionLibraryTests.coordinator(["recompose", session, "--out", out, "--mix", "host", "--layout", "split-horizontal",
                                       "--preset", "ultrafast", "--replace"])
            try #require(run.exitCode == 0, "recompose failed: \(run.stderr.suffix(2000))")
            let combined = try #require(try FileManager.default.contentsOfDirectory(atPath: folder)
                .first { $0.hasPrefix("DualCam_Combined_") && $0.hasSuffix(".mp4") })
            let host = CompositeCodes(LayoutSpec(kind: .splitHorizontal), outputWidth: 640, outputHeight: 360,
                                      sourceWidth: 640, sourceHeight: 360)
            let m = try AVSyncProbe.measure(path: folder + "/" + combined) { host.read($0)[0] }
            #expect(m.offsetsNanoseconds.count >= 6 && m.worstNanoseconds <= 15_000_000, "\(m.offsetsNanoseconds)")
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json")))
            let composite = try #require((manifest as? [String: Any])?["composite"] as? [String: Any])
            #expect(composite["mix"] as? String == "host")
        }
    }
}
