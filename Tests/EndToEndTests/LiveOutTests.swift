import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// Issue 33, live out: one demo take streams its programme at once to an RTMP receiver
    /// (`ffmpeg -listen 1`) and an SRT listener on loopback, and to an address where
    /// nothing listens. Each receiver gets the combined file's own pictures, in order,
    /// with its sound; the dead destination costs the take nothing (every frame in the
    /// files, it is tried again with a backoff, and the manifest says so); and the stream
    /// key shows nowhere, not in the output nor in the manifest.
    @Suite struct LiveOutTests {
        static let key = "sk-\(UInt32.random(in: 100_000...999_999))-secret"

        @Test func theProgrammeReachesEveryReceiverAndADeadOneCostsTheTakeNothing() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-live-\(getpid())"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: out) }
            let rtmpPort = Int.random(in: 20_000...29_999), srtPort = Int.random(in: 30_000...39_999)
            let rtmp = try Child(path: "/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-listen", "1", "-i",
                                                           "rtmp://127.0.0.1:\(rtmpPort)/live/\(Self.key)", "-c", "copy",
                                                           "-y", out + "/rtmp.flv"], typed: false)
            let srt = try Child(path: "/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-i",
                                                          "srt://127.0.0.1:\(srtPort)?mode=listener&streamid=\(Self.key)",
                                                          "-c", "copy", "-y", "-f", "mpegts", out + "/srt.ts"], typed: false)
            defer { rtmp.stop(); srt.stop() }
            Thread.sleep(forTimeInterval: 1)
            let seconds = 20
            let run = try DemoRun.run(["demo", "--duration", "\(seconds)", "--out", out + "/library", "--state", out + "/state",
                                       "--size", "640x360", "--layout", "split-horizontal",
                                       "--stream", "rtmp://127.0.0.1:\(rtmpPort)/live/\(Self.key)",
                                       "--stream", "srt://127.0.0.1:\(srtPort)?streamid=\(Self.key)",
                                       "--stream", "rtmp://127.0.0.1:9/live/\(Self.key)"])
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            #expect(!run.stderr.contains(Self.key) && !run.stdout.contains(Self.key), "the key was printed: \(run.stderr.suffix(2000))")
            #expect(run.stderr.contains("rtmp://127.0.0.1:\(rtmpPort)/live/****: live"), "\(run.stderr.suffix(2000))")
            _ = rtmp.finish(seconds: 10)
            srt.stop(seconds: 5)

            let combined = try #require(run.mp4Files.first { $0.contains("DualCam_Combined_") })
            let expected = try Self.codes(combined)
            #expect(expected.count == seconds * 30, "the combined file has \(expected.count) frames")
            for received in [out + "/rtmp.flv", out + "/srt.ts"] {
                let codes = try Self.codes(received)
                // The same pictures in the same order, from the take's first frame (the
                // stream starts at the first key frame, which is the first picture).
                #expect(codes.count * 100 >= expected.count * 95, "\(received): \(codes.count) of \(expected.count) pictures")
                #expect(Array(codes.prefix(expected.count)) == Array(expected.prefix(codes.count)), "\(received): other pictures")
                let sound = try MediaProbe.probe(path: received)
                #expect(sound.audio != nil, "\(received) has no sound")
                // Sound and picture in step as received: each tone burst (every whole second
                // of the cameras' true time) against the picture whose code crosses it,
                // read by tools/dctc_read.py (ffmpeg + numpy, none of our code).
                let av = try DemoRun.child("/usr/bin/env", ["python3", VividRun.repository + "/tools/dctc_read.py", "--av",
                                                            "--slot", "0,0,320,360", "--source", "640x360", received])
                let worst = av.stdout.components(separatedBy: "A/V offset worst ").last?.split(separator: " ").first.flatMap { Double($0) }
                #expect(worst.map { $0 <= 1000.0 / 30 } == true, "\(received): \(av.stdout) \(av.stderr.suffix(500))")
                print("live out: \(received.split(separator: "/").last!): \(codes.count) of \(expected.count) pictures; \(av.stdout.prefix(160))")
            }

            let folder = (combined as NSString).deletingLastPathComponent
            let text = try String(contentsOfFile: folder + "/manifest.json", encoding: .utf8)
            #expect(!text.contains(Self.key), "the manifest holds the key")
            let manifest = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            let streams = try #require(manifest?["liveOut"] as? [[String: Any]])
            #expect(streams.count == 3)
            for stream in streams.prefix(2) {
                #expect(stream["connections"] as? Int == 1 && stream["reconnects"] as? Int == 0, "\(stream)")
                #expect((stream["liveSeconds"] as? Double ?? 0) > Double(seconds) - 3, "\(stream)")
            }
            let dead = streams[2]
            #expect(dead["connections"] as? Int == 0, "\(dead)")
            let tries = (dead["events"] as? [[String: Any]] ?? []).filter { ($0["what"] as? String ?? "").hasPrefix("could not connect") }
            #expect(tries.count >= 2, "the dead destination was not tried again: \(dead)")
            // The take itself: every frame of both cameras and the combined picture.
            let cameras = try #require(manifest?["cameras"] as? [[String: Any]])
            for camera in cameras {
                #expect((camera["statistics"] as? [String: Any])?["framesDropped"] as? Int == 0, "\(camera)")
            }
            #expect((manifest?["composite"] as? [String: Any])?["repeats"] as? Int == 0)
        }

        /// Each picture's two halves' codes, the same in the file and in what was received.
        static func codes(_ path: String) throws -> [[UInt32]] {
            let halves = CompositeCodes(.init(kind: .splitHorizontal), outputWidth: 640, outputHeight: 360, sourceWidth: 640, sourceHeight: 360)
            var codes: [[UInt32]] = []
            try MediaProbe.forEachFrame(path: path) { codes.append(halves.read($0.image)) }
            return codes
        }
    }
}
