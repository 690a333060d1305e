import DualCamCore
import Foundation
import Testing

extension EndToEnd {
    /// The director through the whole rig: two agents play a scripted espeak-ng
    /// conversation as their microphones (`--audio-files`), the live composite is cut by
    /// `--director auto`, and then `recompose --director auto` cuts the same take from
    /// its files. The cuts agree, the picture shows whom the cuts say, and the sound is
    /// levelled for publishing.
    @Suite struct DirectorTakeTests {
        /// Host, guest, an "mm-hm" under the guest, turns, and an overlap of over 2 s.
        static let script = """
            person host  en-us+m3
            person guest en-gb+f2

            0.6        host   say    Welcome back. Today my guest builds cameras that keep perfect time.
            end+0.5    guest  say    Thank you for having me. It is a real pleasure to be here with you.
            start+2.0  host   mmhm   mm hm
            end+0.6    host   say    So tell me, why does the timing matter so much?
            end+0.5    guest  say    Because every camera has its own clock, and none of them agree with each other.
            end-2.4    host   say    Wait, wait, none of them agree at all?
            end+0.5    guest  say    Not one.
            """

        struct Shown: Decodable {
            struct Director: Decodable {
                struct Cut: Decodable { var at: Double; var shot: [String] }
                var file: String
                var cuts: [Cut]
                struct Record: Decodable { var cuts: [Cut] }
            }
            struct Manifest: Decodable {
                struct Render: Decodable { var file: String; var director: Director.Record? }
                var renders: [Render]?
            }
            var director: Director?
            var manifest: Manifest?
        }

        static func shown(_ session: String, library: String) throws -> Shown {
            let run = try DemoRun.child(DemoRun.binDirectory + "/dualcam-coordinator", ["show", session, "--out", library, "--json"])
            try #require(run.exitCode == 0, "show failed: \(run.stderr)")
            return try JSONDecoder().decode(Shown.self, from: Data(run.stdout.utf8))
        }

        /// Luma of the frame at `seconds` (the frame shown then), via the ffmpeg CLI.
        static func luma(_ file: String, at seconds: Double) throws -> [UInt8] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            process.arguments = ["-v", "error", "-ss", String(format: "%.3f", seconds), "-i", file,
                                 "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return [UInt8](data)
        }

        @Test func theLiveCutFollowsTheVoicesAndARecomposeCutsTheSame() throws {
            let out = NSTemporaryDirectory() + "dualcam-director-take-\(getpid())"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: out) }
            try Self.script.write(toFile: out + "/script.txt", atomically: true, encoding: .utf8)
            let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("tools/conversation").path
            let make = try DemoRun.child("/usr/bin/python3", [tools + "/make-conversation.py", out + "/script.txt", "--out", out + "/talk"])
            try #require(make.exitCode == 0, "make-conversation.py: \(make.stderr)")

            let library = out + "/library"
            let run = try DemoRun.run(["demo", "--duration", "20", "--out", library, "--state", out + "/coordinator-state",
                                       "--size", "640x360", "--director", "auto",
                                       "--audio-files", out + "/talk/host.wav," + out + "/talk/guest.wav"])
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            #expect(run.stderr.contains("director on (standard"), "\(run.stderr.prefix(2000))")
            let session = try #require(try FileManager.default.contentsOfDirectory(atPath: library).first { !$0.hasPrefix(".") })
            let live = try #require(try Self.shown(session, library: library).director, "show --json has no director")
            // The turns: host from 0.6 s, guest from 5.5 s, host from 9.6 s, guest from
            // 12.8 s with the host over her from 14.4 s; the mm-hm (7.5 s) cuts nothing.
            let shots = live.cuts.map { $0.shot }
            #expect(shots.prefix(5) == [["demo-host"], ["demo-guest"], ["demo-host"], ["demo-guest"], ["demo-host", "demo-guest"]],
                    "\(live.cuts)")
            #expect(!live.cuts.contains { $0.at > 7.4 && $0.at < 9.0 }, "a cut on the mm-hm: \(live.cuts)")
            for (cut, turn) in zip(live.cuts.prefix(4), [0.6, 5.5, 9.62, 12.85]) {
                #expect(cut.at - turn > 0.4 && cut.at - turn < 0.9, "cut \(cut) for the turn at \(turn) s")
            }

            // The picture shows whom the cut says: mid-shot, the combined frame is the
            // camera's own frame (the label beside each pattern tells them apart).
            let folder = library + "/" + session
            let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            func path(_ prefix: String) throws -> String { folder + "/" + (try #require(files.first { $0.hasPrefix(prefix) && $0.hasSuffix(".mp4") })) }
            let combined = try path("DualCam_Combined_"), host = try path("DualCam_Host_"), guest = try path("DualCam_Guest_")
            for (time, expected) in [(3.0, host), (8.0, guest), (11.0, host)] {
                let picture = try Self.luma(combined, at: time)
                func distance(_ file: String) throws -> Double {
                    let other = try Self.luma(file, at: time)
                    guard other.count == picture.count, !other.isEmpty else { return .infinity }
                    return Double(zip(picture, other).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(other.count)
                }
                let near = try distance(expected), far = try distance(expected == host ? guest : host)
                #expect(near < far, "at \(time) s the combined frame is \(near) from the expected camera and \(far) from the other")
            }

            // Offline, from the files: the same cuts, each within a frame.
            let recompose = try DemoRun.child(DemoRun.binDirectory + "/dualcam-coordinator",
                                              ["recompose", session, "--out", library, "--director", "auto"])
            try #require(recompose.exitCode == 0, "recompose failed: \(recompose.stderr)")
            let render = try #require(try Self.shown(session, library: library).manifest?.renders?.last)
            #expect(render.file.hasSuffix("_director.mp4"), "\(render.file)")
            let offline = try #require(render.director)
            #expect(offline.cuts.map(\.shot) == live.cuts.map(\.shot), "live \(live.cuts) offline \(offline.cuts)")
            for (a, b) in zip(live.cuts, offline.cuts) { #expect(abs(a.at - b.at) <= 1.0 / 30 + 1e-6, "live \(a) offline \(b)") }

            // The exports carry the cut as an edit of the angles, read back by OpenTimelineIO.
            for format in ["fcpxml", "xmeml", "otio", "edl"] {
                let export = try DemoRun.child(DemoRun.binDirectory + "/dualcam-coordinator", ["export", folder, "--format", format])
                try #require(export.exitCode == 0, "export \(format): \(export.stderr)")
            }
            let readback = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Editing/timeline_readback.py").path
            let read = try DemoRun.child("/usr/bin/env", ["python3", readback, folder])
            #expect(read.exitCode == 0, "OTIO read-back:\n\(read.stdout)\n\(read.stderr)")
            #expect(read.stdout.contains("otio: a Programme track"), "\(read.stdout)")

            // Publishable sound, as ffmpeg's own R128 meter reads the file.
            for file in [combined, folder + "/" + render.file] {
                let meter = try DemoRun.child("/usr/bin/ffmpeg", ["-hide_banner", "-nostats", "-i", file, "-af", "ebur128=peak=true",
                                                                  "-f", "null", "-"])
                let summary = meter.stderr.components(separatedBy: "Summary:").last ?? ""
                func figure(_ label: String) -> Double? {
                    summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }
                        .flatMap { $0.split(separator: " ").compactMap { Double($0) }.first }
                }
                let integrated = try #require(figure("I:"), "\(summary)")
                let peak = try #require(figure("Peak:"), "\(summary)")
                #expect(abs(integrated + 16) <= 1, "\(file): \(integrated) LUFS")
                #expect(peak <= -1, "\(file): true peak \(peak) dBTP")
            }
        }
    }
}
