import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// From the rig to the editor (issue 17), on one real 11 s session at 29.97 fps with the
    /// guest's clock 37 ms off and 80 ppm fast: a timecode track in every MP4, drop-frame,
    /// the same timecode for the same instant in host, guest and combined (frame-exactly,
    /// at the start and after 10 s), the files' names and roles in their metadata, the
    /// four timelines read back by OpenTimelineIO's own adapters, the contact sheet and
    /// its cost, the library's JSON, and exports refused for bad sessions.
    @Suite struct EditingTests {
        static let (width, height, seconds) = (640, 360, 11)
        static let rate = FrameRate(30000, 1001)

        @Test func timecodeTimelinesAndContactSheet() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-editing-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let demo = try DemoRun.run(["demo", "--duration", "\(Self.seconds)", "--out", out, "--state", out + "/state",
                                        "--size", "\(Self.width)x\(Self.height)", "--fps", "29.97", "--layout", "split-horizontal",
                                        "--guest-clock-offset-ms", "37", "--guest-clock-skew-ppm", "80"])
            try #require(demo.exitCode == 0, "demo failed: \(demo.stderr.suffix(3000))")
            let combinedFile = try #require(demo.mp4Files.first { $0.contains("DualCam_Combined_") })
            let folder = (combinedFile as NSString).deletingLastPathComponent
            let id = (folder as NSString).lastPathComponent
            let session = RecordedSession(out: out, name: id)
            let manifest = try session.manifest()
            let sessionTimecode = try #require(manifest["timecode"] as? String, "no timecode in the manifest")
            #expect(sessionTimecode.contains(";"), "29.97 is drop-frame: \(sessionTimecode)")

            // Every MP4 has a tmcd track, drop-frame, and names its camera and session.
            let files = try ["Host", "Guest", "Combined"].map { try session.file("DualCam_\($0)_") }
            var starts: [SMPTETimecode] = []
            for (name, file) in zip(["Host", "Guest", "Combined"], files) {
                let probe = try Self.ffprobe(file)
                let streams = try #require(probe["streams"] as? [[String: Any]])
                #expect(streams.contains { $0["codec_tag_string"] as? String == "tmcd" }, "\(name): no tmcd track: \(streams)")
                let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
                let text = try #require((video["tags"] as? [String: Any])?["timecode"] as? String, "\(name): no timecode")
                #expect(text.contains(";"), "\(name): not drop-frame: \(text)")
                starts.append(try #require(SMPTETimecode(parsing: text, rate: Self.rate)))
                let tags = try #require((probe["format"] as? [String: Any])?["tags"] as? [String: Any])
                #expect((tags["title"] as? String)?.contains(name) == true && (tags["title"] as? String)?.contains(id) == true, "\(tags)")
                #expect((tags["comment"] as? String)?.contains("camera=\(name)") == true
                        && (tags["comment"] as? String)?.contains("session=\(id)") == true, "\(tags)")
                if name == "Host" { #expect((tags["comment"] as? String)?.contains("role=host") == true, "\(tags)") }
            }
            // T0's time of day on this machine, near the wall clock the session started at.
            let started = try #require(manifest["startWallTime"] as? String)
            let wall = try #require(ISO8601DateFormatter().date(from: started))
            let tod = wall.timeIntervalSince(Calendar.current.startOfDay(for: wall))
            let t0 = Double(try #require(SMPTETimecode(parsing: sessionTimecode, rate: Self.rate)).frames) * 1001 / 30000
            #expect(abs(t0 - tod) < 30 || abs(t0 - tod) > 86_300, "timecode \(sessionTimecode) is not the time of day \(tod) s")

            // The same instant (the same DCTC code) has the same timecode in every file. A
            // frame's timecode is its file's start timecode counted on by its time in the
            // file (as an editor places it), not by its index: a loaded machine may drop one.
            func frames(_ file: String, _ read: (YUV420Image) -> UInt32) throws -> [(code: UInt32, frame: Int64)] {
                var found: [(code: UInt32, ns: Int64)] = []
                try MediaProbe.forEachFrame(path: file) { found.append((read($0.image), $0.ptsNanoseconds)) }
                let first = found.first?.ns ?? 0
                return found.map { ($0.code, GenlockGrid(rate: Self.rate).nearestFrameIndex(to: $0.ns - first)) }
            }
            let split = CompositeCodes(LayoutSpec(kind: .splitHorizontal), outputWidth: Self.width, outputHeight: Self.height,
                                       sourceWidth: Self.width, sourceHeight: Self.height)
            let host = try frames(files[0]) { DCTC.read($0) }
            let guest = try frames(files[1]) { DCTC.read($0) }
            let combined = try frames(files[2]) { split.read($0)[0] }
            for k in [0, 1, 300, 301] {
                try #require(k < host.count, "host has \(host.count) frames")
                let same = { (codes: [(code: UInt32, frame: Int64)]) in
                    codes.first { abs(DCTC.differenceNanoseconds($0.code, host[k].code)) <= 500_000 }?.frame
                }
                let j = try #require(same(guest), "no guest frame shows host frame \(k)'s instant")
                let m = try #require(same(combined), "no combined frame shows host frame \(k)'s instant")
                let h = starts[0].adding(frames: host[k].frame), g = starts[1].adding(frames: j), c = starts[2].adding(frames: m)
                #expect(h == g && h == c, "frame \(k): host \(h), guest \(g) (frame \(j)), combined \(c) (frame \(m))")
            }

            // Timelines: FCPXML and OTIO from finalising, xmeml and EDL on demand, all read
            // back by OpenTimelineIO's adapters against ffprobe's view of the files.
            for ext in ["fcpxml", "otio"] {
                #expect(FileManager.default.fileExists(atPath: folder + "/DualCam_\(id).\(ext)"), "finalise wrote no .\(ext)")
            }
            for format in ["xmeml", "edl"] {
                let exported = try SessionLibraryTests.coordinator(["export", id, "--library", out, "--format", format])
                #expect(exported.exitCode == 0, "\(exported.stderr)")
            }
            let readback = try Self.run(["python3", Self.readbackScript, folder])
            print(readback.stdout)
            #expect(readback.exitCode == 0, "OTIO read-back failed:\n\(readback.stdout)\n\(readback.stderr)")
            // Elsewhere: relative paths lead back into the session; --absolute gives absolute ones.
            let elsewhere = out + "/timelines"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            let moved = try SessionLibraryTests.coordinator(["export", folder, "--format", "otio", "--out", elsewhere])
            #expect(moved.exitCode == 0, "\(moved.stderr)")
            let movedText = try String(contentsOfFile: elsewhere + "/DualCam_\(id).otio", encoding: .utf8)
            #expect(movedText.contains("\"../\(id)/DualCam_Host_"), "\(movedText.prefix(2000))")
            let absolute = try SessionLibraryTests.coordinator(["export", folder, "--format", "xmeml", "--absolute",
                                                                "--out", elsewhere + "/abs.xml"])
            #expect(absolute.exitCode == 0, "\(absolute.stderr)")
            #expect(try String(contentsOfFile: elsewhere + "/abs.xml", encoding: .utf8).contains("<pathurl>file://\(folder)/DualCam_Host_"))

            // The contact sheet: twelve 240x134 tiles, and a thumbnail; and what it cost.
            let sheet = try #require(manifest["contactSheet"] as? [String: Any])
            for (name, size) in [("contact-sheet.jpg", "980x418"), ("thumbnail.jpg", "240x134")] {
                let probe = try Self.ffprobe(folder + "/" + name)
                let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
                #expect("\(stream["width"] ?? 0)x\(stream["height"] ?? 0)" == size, "\(name): \(stream)")
            }
            let writing = try #require(sheet["writingMilliseconds"] as? Double)
            // The finalising a user waits for: from the stop instant to the manifest.
            let finalising = try #require(sheet["sinceStopMilliseconds"] as? Double)
            let sampling = try #require(sheet["samplingMilliseconds"] as? Double)
            print("contact sheet: \(writing) ms at stop, \(100 * writing / finalising) % of \(finalising) ms finalising; "
                + "\(sampling) ms scaling while recording (\(Self.seconds) s at 29.97 fps)")
            #expect(writing <= 0.05 * finalising, "the contact sheet cost \(writing) ms of \(finalising) ms finalising")

            // The library for scripts names them.
            let listed = try SessionLibraryTests.coordinator(["list", "--out", out, "--json"])
            let listing = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
            let entry = try #require((listing["sessions"] as? [[String: Any]])?.first { $0["id"] as? String == id })
            let listedFiles = try #require(entry["files"] as? [String: Any])
            #expect(listedFiles["contactSheet"] as? String == folder + "/contact-sheet.jpg", "\(listedFiles)")
            #expect(listedFiles["thumbnail"] as? String == folder + "/thumbnail.jpg")
            #expect((listedFiles["timelines"] as? [String: Any])?["fcpxml"] as? String == folder + "/DualCam_\(id).fcpxml")
            #expect(listedFiles["timecode"] as? String == sessionTimecode)

            // recompose keeps the timecode and the tags.
            let recomposed = try SessionLibraryTests.coordinator(["recompose", folder, "--layout", "equal", "--preset", "ultrafast"])
            try #require(recomposed.exitCode == 0, "\(recomposed.stderr.suffix(2000))")
            let render = (files[2] as NSString).deletingPathExtension + "_equal.mp4"
            let renderProbe = try Self.ffprobe(render)
            let renderVideo = (renderProbe["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == "video" }
            #expect((renderVideo?["tags"] as? [String: Any])?["timecode"] as? String == starts[2].description, "\(renderProbe)")

            try Self.badInput(out: out, folder: folder, id: id)
        }

        /// Unfinished and damaged sessions are refused with what is missing, and nothing is
        /// written; a file the manifest names that is a link out of the folder is never read.
        static func badInput(out: String, folder: String, id: String) throws {
            let fm = FileManager.default
            let unfinished = out + "/20000101_000000"
            try fm.createDirectory(atPath: unfinished, withIntermediateDirectories: true)
            try fm.copyItem(atPath: folder + "/session.json", toPath: unfinished + "/session.json")
            let refused = try SessionLibraryTests.coordinator(["export", unfinished, "--format", "fcpxml"])
            #expect(refused.exitCode != 0 && refused.stderr.contains("unfinished") && refused.stderr.contains("resume"), "\(refused.stderr)")
            #expect(try fm.contentsOfDirectory(atPath: unfinished) == ["session.json"], "something was written")

            let linked = out + "/20000101_000001"
            try fm.createDirectory(atPath: linked, withIntermediateDirectories: true)
            for name in try fm.contentsOfDirectory(atPath: folder) where name == "manifest.json" || name.hasSuffix(".mp4") || name.hasSuffix(".wav") {
                try fm.copyItem(atPath: folder + "/" + name, toPath: linked + "/" + name)
            }
            let host = try #require(try fm.contentsOfDirectory(atPath: linked).first { $0.hasPrefix("DualCam_Host_") && $0.hasSuffix(".mp4") })
            try fm.removeItem(atPath: linked + "/" + host)
            try fm.createSymbolicLink(atPath: linked + "/" + host, withDestinationPath: folder + "/" + host)
            let before = try fm.contentsOfDirectory(atPath: linked).sorted()
            let link = try SessionLibraryTests.coordinator(["export", linked, "--format", "otio"])
            #expect(link.exitCode != 0 && link.stderr.contains(host) && link.stderr.contains("not a plain file"), "\(link.stderr)")
            #expect(try fm.contentsOfDirectory(atPath: linked).sorted() == before, "something was written")

            let format = try SessionLibraryTests.coordinator(["export", folder, "--format", "avid"])
            #expect(format.exitCode != 0 && format.stderr.contains("fcpxml, xmeml, otio or edl"), "\(format.stderr)")
        }

        static var readbackScript: String {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Editing/timeline_readback.py").path
        }

        static func ffprobe(_ path: String) throws -> [String: Any] {
            let result = try run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path])
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        }

        static func run(_ arguments: [String]) throws -> DemoRun {
            try DemoRun.child("/usr/bin/env", arguments)
        }
    }
}
