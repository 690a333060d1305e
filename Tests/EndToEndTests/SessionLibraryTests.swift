import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// The session library on one small real session (320x240, 2 s, split-screen):
    /// `list`, `show`, `recompose` replaying the recorded layout and with another one,
    /// a recompose that fails, an unfinished session, and `delete`.
    @Suite struct SessionLibraryTests {
        static let (width, height, seconds, fps) = (320, 240, 2, 30)

        @Test func listShowRecomposeDelete() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-library-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let demo = try DemoRun.run(["demo", "--duration", "\(Self.seconds)", "--out", out, "--state", out + "/state",
                                        "--size", "\(Self.width)x\(Self.height)", "--layout", "split-horizontal"])
            try #require(demo.exitCode == 0, "demo failed: \(demo.stderr.suffix(3000))")
            let combined = try #require(demo.mp4Files.first { $0.contains("DualCam_Combined_") })
            let folder = (combined as NSString).deletingLastPathComponent
            let id = (folder as NSString).lastPathComponent
            let frames = Self.seconds * Self.fps

            let list = try Self.coordinator(["list", "--out", out])
            #expect(list.exitCode == 0)
            let row = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix(id) }, "\(list.stdout)")
            #expect(row.contains("2.0 s") && row.contains("split-horizontal") && row.hasSuffix("complete"), "\(row)")

            // The same for scripts, in the documented fields (docs/LIBRARY-JSON.md).
            let listedJSON = try Self.coordinator(["list", "--out", out, "--json"])
            let listing = try #require(try JSONSerialization.jsonObject(with: Data(listedJSON.stdout.utf8)) as? [String: Any])
            #expect(listing["format"] as? Int == 1)
            let entry = try #require((listing["sessions"] as? [[String: Any]])?.first { $0["id"] as? String == id }, "\(listedJSON.stdout)")
            #expect(entry["state"] as? String == "complete" && entry["durationSeconds"] as? Double == Double(Self.seconds))
            #expect((entry["files"] as? [String: Any])?["combined"] as? String == combined, "\(entry)")
            #expect(((entry["files"] as? [String: Any])?["cameras"] as? [String])?.count == 2)
            let shownJSON = try Self.coordinator(["show", id, "--out", out, "--json"])
            let detail = try #require(try JSONSerialization.jsonObject(with: Data(shownJSON.stdout.utf8)) as? [String: Any])
            #expect(((detail["manifest"] as? [String: Any])?["cameras"] as? [Any])?.count == 2, "\(shownJSON.stdout.prefix(500))")
            #expect((detail["contents"] as? [[String: Any]])?.contains { $0["name"] as? String == "manifest.json" } == true)

            let show = try Self.coordinator(["show", id, "--out", out])
            #expect(show.exitCode == 0)
            for expected in ["Cameras", "demo-host [host]", "demo-guest [guest]", "captured", "Layout timeline",
                             (combined as NSString).lastPathComponent, "split-horizontal", "Warnings",
                             // As it was encoded: the live composite's own preset, measured (`auto`),
                             // not the cameras'.
                             "encoded live: libx264 ", "(auto: "] {
                #expect(show.stdout.contains(expected), "show lacks \(expected): \(show.stdout)")
            }
            let liveEncoding = try #require((try Self.manifest(folder)["composite"] as? [String: Any])?["encoding"] as? [String: Any])
            let livePreset = try #require(liveEncoding["preset"] as? String)
            #expect(["ultrafast", "superfast", "veryfast", "faster", "fast", "medium"].contains(livePreset), "\(liveEncoding)")
            #expect(liveEncoding["automatic"] as? Bool == true && (liveEncoding["speed"] as? Double ?? 0) > 0, "\(liveEncoding)")
            #expect(show.stdout.contains("encoded live: libx264 \(livePreset) (auto: "), "\(show.stdout)")
            let unknown = try Self.coordinator(["show", "19990101_000000", "--out", out])
            #expect(unknown.exitCode != 0 && unknown.stderr.contains(id), "\(unknown.stderr)")

            // Replaying the recorded layout gives, tick by tick, the pictures live
            // composition chose: the same DCTC code in each half.
            let split = LayoutSpec(kind: .splitHorizontal)
            let live = try Self.codes(combined, layout: split)
            #expect(live.count == frames)
            // A recompose writes a file of its own: the live composite is kept as it was.
            let liveBytes = try Data(contentsOf: URL(fileURLWithPath: combined))
            let replay = try Self.coordinator(["recompose", folder])
            try #require(replay.exitCode == 0, "\(replay.stderr)")
            #expect(replay.stderr.contains("100.0 %"), "no progress shown: \(replay.stderr)")
            let base = (combined as NSString).deletingPathExtension
            let render = base + "_split-horizontal.mp4"
            #expect(replay.stdout.contains("Recomposed into a new file: " + render), "\(replay.stdout)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: combined)) == liveBytes, "the live composite was overwritten")
            // Whatever the live composite chose, an offline render takes veryfast.
            let renderEncoding = (try Self.manifest(folder)["renders"] as? [[String: Any]])?.first?["encoding"] as? [String: Any]
            #expect(renderEncoding?["preset"] as? String == "veryfast" && renderEncoding?["automatic"] == nil, "\(renderEncoding ?? [:])")
            let replayed = try Self.codes(render, layout: split)
            #expect(replayed.count == frames)
            #expect(replayed.elementsEqual(live, by: ==), "live \(live)\nrecomposed \(replayed)")
            // The halves themselves in sync (a repeated frame where a camera dropped one
            // may differ by a period; a genlocked demo drops none at 320x240).
            let apart = replayed.filter { abs(DCTC.differenceNanoseconds($0.0, $0.1)) > 500_000 }.count
            #expect(apart <= 2, "\(apart) frames with halves apart: \(replayed)")

            // A manifest from before layout editions, whose "equal" was split-horizontal's
            // picture: replayed, it draws that picture still, and is written back in
            // today's words.
            var old = try Self.manifest(folder)
            var oldComposite = try #require(old["composite"] as? [String: Any])
            #expect(oldComposite["layoutEdition"] as? Int == LayoutEdition.current.rawValue)
            oldComposite["layout"] = "equal"
            oldComposite.removeValue(forKey: "layoutEdition")
            old["composite"] = oldComposite
            try JSONSerialization.data(withJSONObject: old).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
            let legacy = try Self.coordinator(["recompose", folder, "--preset", "ultrafast", "--replace"])
            try #require(legacy.exitCode == 0, "\(legacy.stderr)")
            #expect(try Self.codes(combined, layout: split).elementsEqual(live, by: ==), "the old equal is not the old picture")
            let rewritten = try #require(try Self.manifest(folder)["composite"] as? [String: Any])
            #expect(rewritten["layout"] as? String == "equal:fill", "\(rewritten)")
            #expect(rewritten["layoutEdition"] as? Int == LayoutEdition.current.rawValue)

            // Another layout: the large picture is the host, the inset the guest, in the
            // same pairs as live.
            let pip = LayoutSpec(kind: .pip, pip: PiPOptions(size: .large))
            // --replace overwrites the combined file instead.
            let recomposed = try Self.coordinator(["recompose", id, "--out", out, "--layout", "pip", "--pip-size", "40",
                                                   "--preset", "ultrafast", "--crf", "18", "--replace"])
            try #require(recomposed.exitCode == 0, "\(recomposed.stderr)")
            let probe = try MediaProbe.probe(path: combined)
            #expect(probe.frameCount == frames && probe.width == Self.width && probe.height == Self.height)
            let pipCodes = try Self.codes(combined, layout: pip)
            #expect(pipCodes.map(\.0) == live.map(\.0), "host codes differ from live")
            #expect(pipCodes.map(\.1) == live.map(\.1), "guest codes differ from live")
            let manifest = try Self.manifest(folder)
            let composite = try #require(manifest["composite"] as? [String: Any])
            #expect(composite["layout"] as? String == "pip:size=40")
            #expect(composite["ticks"] as? Int == frames)
            #expect((composite["encoding"] as? [String: Any])?["preset"] as? String == "ultrafast")
            #expect((manifest["cameras"] as? [Any])?.count == 2, "the rest of the manifest is kept")
            #expect((manifest["renders"] as? [[String: Any]])?.map { $0["file"] as? String } == [(render as NSString).lastPathComponent],
                    "the earlier render is still listed: \(manifest["renders"] ?? "none")")

            // --swap alone adjusts the layout the file has: the guest large, the host inset.
            let swapped = try Self.coordinator(["recompose", folder, "--swap", "--preset", "ultrafast"])
            try #require(swapped.exitCode == 0, "\(swapped.stderr)")
            let swapCodes = try Self.codes(base + "_pip.mp4", layout: LayoutSpec(kind: .pip, pip: PiPOptions(size: .large, swapped: true)))
            #expect(swapCodes.elementsEqual(live, by: ==), "swapped pip differs from live")
            let renders = try #require(try Self.manifest(folder)["renders"] as? [[String: Any]])
            #expect(renders.map { $0["layout"] as? String } == ["split-horizontal", "pip:size=40,swap"], "\(renders)")
            let shown = try Self.coordinator(["show", id, "--out", out])
            #expect(shown.stdout.contains("Renders (recompose)") && shown.stdout.contains((base as NSString).lastPathComponent + "_pip.mp4"),
                    "\(shown.stdout)")

            // A recompose that fails leaves the combined file as it was, and no temporary file.
            let before = try Data(contentsOf: URL(fileURLWithPath: combined))
            let failed = try Self.coordinator(["recompose", folder, "--encoder", "no-such-encoder"])
            #expect(failed.exitCode != 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: combined)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasPrefix(".recompose") })

            // Without its manifest a session is unfinished: listed as such, not recomposed.
            let unfinished = out + "/20200101_000000"
            try FileManager.default.createDirectory(atPath: unfinished + "/segments", withIntermediateDirectories: true)
            let listed = try Self.coordinator(["list", "--out", out])
            #expect(listed.stdout.contains("unfinished — run `dualcam-coordinator resume 20200101_000000`"), "\(listed.stdout)")
            let refused = try Self.coordinator(["recompose", "20200101_000000", "--out", out])
            #expect(refused.exitCode != 0 && refused.stderr.contains("resume"), "\(refused.stderr)")

            // Deleting asks a person; with no terminal it refuses unless told --yes.
            let asked = try Self.coordinator(["delete", id, "--out", out])
            #expect(asked.exitCode != 0 && asked.stderr.contains("--yes"), "\(asked.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder))
            let deleted = try Self.coordinator(["delete", id, "--out", out, "--yes"])
            #expect(deleted.exitCode == 0, "\(deleted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder))
            #expect(!(try Self.coordinator(["list", "--out", out])).stdout.contains(id))
        }

        /// A manifest cut short (a bad card, a full disk) while every file and segment is
        /// there: listed as damaged with the way out, and rebuilt offline from the
        /// segments into a session whose files have every frame again.
        @Test func aTruncatedManifestIsRebuiltFromTheSegments() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-rebuild-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let demo = try DemoRun.run(["demo", "--duration", "\(Self.seconds)", "--out", out, "--state", out + "/state",
                                        "--size", "\(Self.width)x\(Self.height)"])
            try #require(demo.exitCode == 0, "demo failed: \(demo.stderr.suffix(3000))")
            let combined = try #require(demo.mp4Files.first { $0.contains("DualCam_Combined_") })
            let folder = (combined as NSString).deletingLastPathComponent
            let id = (folder as NSString).lastPathComponent
            let frames = Self.seconds * Self.fps
            let whole = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: folder + "/manifest.json"))

            let listed = try Self.coordinator(["list", "--out", out])
            #expect(listed.exitCode == 0)
            let row = try #require(listed.stdout.split(separator: "\n").first { $0.hasPrefix(id) }, "\(listed.stdout)")
            #expect(row.contains("damaged") && row.contains("rebuild-manifest \(id)"), "\(row)")

            let rebuilt = try Self.coordinator(["rebuild-manifest", id, "--out", out])
            try #require(rebuilt.exitCode == 0, "\(rebuilt.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder + "/manifest.damaged.json"))
            let show = try Self.coordinator(["show", id, "--out", out])
            #expect(show.exitCode == 0 && show.stdout.contains("status    complete"), "\(show.stdout)")
            #expect(show.stdout.contains("rebuilt by rebuild-manifest"), "\(show.stdout)")
            let manifest = try Self.manifest(folder)
            let cameras = try #require(manifest["cameras"] as? [[String: Any]])
            #expect(cameras.count == 2)
            for camera in cameras {
                #expect((camera["statistics"] as? [String: Any])?["framesCaptured"] as? Int == frames, "\(camera)")
                let file = try #require(camera["file"] as? String)
                #expect(try MediaProbe.probe(path: folder + "/" + file).frameCount == frames)
            }
            #expect(try MediaProbe.probe(path: combined).frameCount == frames)
            #expect((manifest["composite"] as? [String: Any])?["ticks"] as? Int == frames)

            // A readable manifest is left alone.
            let again = try Self.coordinator(["rebuild-manifest", id, "--out", out])
            #expect(again.exitCode != 0 && again.stderr.contains("nothing to rebuild"), "\(again.stderr)")
        }

        /// Per frame, the DCTC code of the host's and of the guest's picture in the layout.
        static func codes(_ path: String, layout: LayoutSpec) throws -> [(UInt32, UInt32)] {
            let reader = CompositeCodes(layout, outputWidth: width, outputHeight: height, sourceWidth: width, sourceHeight: height)
            var codes: [(UInt32, UInt32)] = []
            try MediaProbe.forEachFrame(path: path) { frame in
                let both = reader.read(frame.image)
                codes.append((both[0], both[1]))
            }
            return codes
        }

        static func manifest(_ folder: String) throws -> [String: Any] {
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        /// The library commands take no clock options, so not through DemoRun.run.
        static func coordinator(_ arguments: [String]) throws -> DemoRun {
            try DemoRun.child(DemoRun.binDirectory + "/dualcam-coordinator", arguments)
        }
    }
}
