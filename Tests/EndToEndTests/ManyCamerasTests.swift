import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// A rig of more than two cameras (issue 19): `demo --cameras 4` in the grid layout, all
    /// on this machine. Every camera gets a file of its own name with every frame, the
    /// four files' frame codes agree frame by frame, and each cell of the composite's grid
    /// shows its camera at the same instant as the others.
    @Suite struct ManyCamerasTests {
        static let (cameras, seconds, width, height) = (4, 3, 640, 360)

        @Test func fourCamerasInAGridEveryFrameInSync() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-many-\(getpid())"
            // Beside the output, not in it: `RecordedSession` takes the output's one folder.
            let state = out + "-state"
            defer {
                try? FileManager.default.removeItem(atPath: out)
                try? FileManager.default.removeItem(atPath: state)
            }
            let run = try DemoRun.run(["demo", "--cameras", "\(Self.cameras)", "--duration", "\(Self.seconds)", "--out", out,
                                       "--state", state, "--size", "\(Self.width)x\(Self.height)", "--layout", "grid"],
                                      timeout: 120)
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            let frames = Self.seconds * 30
            let session = RecordedSession(out: out)
            let prefixes = ["DualCam_Host_", "DualCam_Guest_", "DualCam_Camera3_", "DualCam_Camera4_"]
            let files = try prefixes.map { try session.file($0) }
            #expect(run.mp4Files.count == Self.cameras + 1, "\(run.stdout)")

            let manifest = try session.manifest()
            let entries = try #require(manifest["cameras"] as? [[String: Any]])
            #expect(entries.count == Self.cameras)
            for entry in entries {
                let statistics = try #require(entry["statistics"] as? [String: Any])
                #expect(statistics["framesCaptured"] as? Int == frames, "\(entry)")
                #expect(statistics["framesDropped"] as? Int == 0, "\(entry)")
            }
            try session.expectCompositeWhole(frames: frames)
            let composite = try #require(manifest["composite"] as? [String: Any])
            #expect(composite["repeats"] as? Int == 0 && composite["droppedFrames"] as? Int == 0, "\(composite)")
            // The composite's preset was measured (`auto`) with every camera's decoding, and
            // the start said so.
            let encoding = try #require(composite["encoding"] as? [String: Any])
            #expect(encoding["automatic"] as? Bool == true && (encoding["speed"] as? Double ?? 0) > 0, "\(encoding)")
            #expect(run.stdout.contains("composite: libx264 \(encoding["preset"] as? String ?? "?"), tune zerolatency (auto, ")
                    || run.stderr.contains("composite: libx264 \(encoding["preset"] as? String ?? "?"), tune zerolatency (auto, "),
                    "\(run.stdout.suffix(2000))")
            #expect(run.stdout.contains("\(Self.cameras) cameras decoded") || run.stderr.contains("\(Self.cameras) cameras decoded"))

            // Frame k of every camera shows the same true instant, to within a tenth of a
            // frame (3.3 ms); every step is one frame period (no frame missing).
            let codes = try files.map { path in
                var codes: [UInt32] = []
                try MediaProbe.forEachFrame(path: path) { codes.append(DCTC.read($0.image)) }
                return codes
            }
            for (name, c) in zip(prefixes, codes) { #expect(c.count == frames, "\(name): \(c.count) frames") }
            let tenth = FrameRate.fps30.periodNanoseconds / 10
            var worst: Int64 = 0
            for k in 0..<(codes.map(\.count).min() ?? 0) {
                let apart = codes.map { DCTC.differenceNanoseconds($0[k], codes[0][k]) }
                let spread = (apart.max() ?? 0) - (apart.min() ?? 0)
                worst = max(worst, spread)
                #expect(spread <= tenth, "frame \(k): codes \(codes.map { $0[k] })")
            }
            for (name, c) in zip(prefixes, codes) {
                let steps = zip(c, c.dropFirst()).filter { abs(DCTC.differenceNanoseconds($1, $0) - 33_333_333) > 1_000_000 }
                #expect(steps.isEmpty, "\(name): \(steps.count) steps off 1/30 s")
            }
            print("MANY-CAMERAS \(Self.cameras) cameras: codes of all files within \(Double(worst) / 1e6) ms of each other")

            // The composite's grid: each cell reads its camera's code of that instant.
            let grid = CompositeCodes(LayoutSpec(kind: .grid), outputWidth: Self.width, outputHeight: Self.height,
                                      sourceWidth: Self.width, sourceHeight: Self.height, streams: Self.cameras)
            var k = 0
            try MediaProbe.forEachFrame(path: try session.file("DualCam_Combined_")) { frame in
                let cells = grid.read(frame.image)
                if k < codes[0].count {
                    #expect(cells == codes.map { $0[k] }, "composite frame \(k): cells \(cells), files \(codes.map { $0[k] })")
                }
                k += 1
            }
            #expect(k == frames)

            // The coordinator's own reading of the files agrees, and says its CPU.
            let truth = try #require(manifest["clockTruth"] as? [String: Any])
            #expect((truth["cameras"] as? [Any])?.count == Self.cameras)
            let spread = try #require(truth["spread"] as? [String: Any])
            #expect((spread["maxMicroseconds"] as? Double ?? .infinity) <= Double(tenth) / 1000, "\(spread)")
            #expect(manifest["coordinatorCPU"] as? [String: Any] != nil)
            #expect(run.stderr.contains("coordinator CPU while recording"), "\(run.stderr.suffix(2000))")
        }
    }
}
