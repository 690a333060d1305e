import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// `serve`: one rig, many takes, no reconnecting between them.
    @Suite struct ServeRigTests {
        /// What a process holds: open files and resident memory.
        struct Figures: CustomStringConvertible {
            var files: Int
            var kilobytes: Int
            var description: String { "\(files) files, \(kilobytes) kB" }

            init(files: Int, kilobytes: Int) {
                self.files = files
                self.kilobytes = kilobytes
            }

            init(pid: Int32) {
                files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
                let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
                kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
            }
        }

        /// Ten takes back to back, scripted on stdin: ten complete sessions with every frame
        /// of both cameras in sync, and the coordinator's and agents' open files and memory
        /// flat from the second take to the tenth.
        @Test func tenTakesBackToBackOnOneRig() throws {
            let rig = try RecoveryRig()
            let out = rig.root + "/out"
            let targets = zip(rig.ports, rig.ids).flatMap { ["--agent", "127.0.0.1:\($0),\($1)"] }
            let serve = try Child("dualcam-coordinator", ["serve", "--duration", "2", "--countdown", "0", "--size", "320x240",
                                                          "--state", rig.root + "/coordinator", "--out", out]
                                  + DemoRun.debugBuildClockGate + targets)
            defer { serve.stop() }
            try #require(serve.waitForErr(containing: "rig up", seconds: 60) != nil, "\(serve.errTail())")
            var coordinator: [Figures] = []
            var agents: [[Figures]] = [[], []]
            for take in 1...10 {
                serve.type("start")
                let deadline = Date().addingTimeInterval(60)
                var reports: [Substring] = []
                while Date() < deadline {
                    reports = serve.out.text.split(separator: "\n").filter { $0.hasPrefix("coordinator: ") }
                    if reports.count >= take { break }
                    usleep(100_000)
                }
                let line = try #require(reports.count == take ? reports.last : nil, "take \(take) did not end: \(serve.errTail())\nstdout: \(serve.out.text)")
                let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                coordinator.append(Figures(files: numbers[0], kilobytes: numbers[1]))
                for i in 0..<2 { agents[i].append(Figures(pid: rig.agents[i].process.processIdentifier)) }
                print("SERVE take \(take): coordinator \(coordinator.last!), host agent \(agents[0].last!), guest agent \(agents[1].last!)")
            }
            serve.type("quit")
            #expect(serve.finish(seconds: 20) == 0, "\(serve.errTail())")
            let sessions = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
            #expect(sessions.count == 10, "\(sessions)")
            for name in sessions {
                let session = RecordedSession(out: out, name: name)
                try session.expectEveryFrameInSync(frames: 60)
                try session.expectCompositeWhole(frames: 60)
            }
            for (who, figures) in [("coordinator", coordinator), ("host agent", agents[0]), ("guest agent", agents[1])] {
                let later = figures.dropFirst()
                #expect(later.map(\.files).max()! - later.map(\.files).min()! <= 2, "\(who) open files: \(figures)")
                #expect(figures.last!.kilobytes - figures[1].kilobytes <= 12_000, "\(who) memory: \(figures)")
            }
        }
    }
}

extension EndToEnd.ServeRigTests {
    /// A filter and a sound mix chosen while recording (the studio's controls, `filter
    /// NAME` and `mix SPEC` on a pipe) apply to the combined file from the next frame and
    /// are kept in the manifest's timelines: frames before the filter are in colour, every
    /// frame from it grey; the two agents' tone bursts (in phase, −12 dBFS each) sum to
    /// −6 dBFS before the mix leaves only the guest, and peak at −12 dBFS after.
    @Test func aFilterAndAMixChangedWhileRecordingTakeEffectFromTheNextFrame() throws {
        let rig = try RecoveryRig()
        let out = rig.root + "/out"
        let targets = zip(rig.ports, rig.ids).flatMap { ["--agent", "127.0.0.1:\($0),\($1)"] }
        // The plain mix (`--loudness off`): the voices' levels tell the mix change apart;
        // the levelling of a published file has tests of its own (DirectorTakeTests).
        let serve = try Child("dualcam-coordinator", ["serve", "--duration", "5", "--countdown", "0", "--size", "320x240",
                                                      "--no-studio", "--loudness", "off", "--state", rig.root + "/coordinator", "--out", out]
                              + DemoRun.debugBuildClockGate + targets)
        defer { serve.stop() }
        try #require(serve.waitForErr(containing: "rig up", seconds: 60) != nil, "\(serve.errTail())")
        serve.type("start")
        try #require(serve.waitForErr(containing: "recording ", seconds: 60) != nil, "\(serve.errTail())")
        Thread.sleep(forTimeInterval: 1.2)
        serve.type("filter bw")
        Thread.sleep(forTimeInterval: 1)
        serve.type("mix lots")  // no such camera: refused, nothing changes
        serve.type("mix guest")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !serve.out.text.contains("coordinator: ") { usleep(100_000) }
        // Ctrl-C on a rig with no take ends it; closing its own links is not a loss to
        // report ("lost … reconnecting" was logged while exiting).
        kill(serve.process.processIdentifier, SIGINT)
        #expect(serve.finish(seconds: 20) == 0, "\(serve.errTail())")
        #expect(!serve.err.all().contains("reconnecting"), "\(serve.errTail())")

        let session = RecordedSession(out: out)
        let composite = try #require(try session.manifest()["composite"] as? [String: Any])
        #expect(composite["filter"] as? String == "none 100%")
        let changes = try #require(composite["filterTimeline"] as? [[String: Any]], "\(composite)")
        #expect(changes.count == 1)
        #expect(changes.first?["filter"] as? String == "bw 100%")
        let at = try #require(changes.first?["presentationNanoseconds"] as? Int64)
        #expect(at > 500_000_000 && at < 5_000_000_000, "changed at \(at) ns")
        #expect(FrameRate.fps30.instant(ofFrame: FrameRate.fps30.firstFrame(atOrAfter: at)) == at, "on a frame: \(at)")

        let combined = try session.file("DualCam_Combined_")
        try Self.expectGrey(combined, from: at)
        #expect(composite["mix"] as? String == "all")
        let mixChanges = try #require(composite["mixTimeline"] as? [[String: Any]], "\(composite)")
        #expect(mixChanges.count == 1 && mixChanges.first?["mix"] as? String == "guest", "\(mixChanges)")
        #expect(serve.err.all().contains("lots, which is not a camera of this session"), "\(serve.errTail())")
        let mixAt = try #require(mixChanges.first?["presentationNanoseconds"] as? Int64)
        #expect(mixAt > at, "the mix changed after the filter: \(mixAt) ns")
        try Self.expectOneVoice(combined, from: mixAt)
        // recompose replays the filter timeline as it replays the layout's.
        let replay = try EndToEnd.SessionLibraryTests.coordinator(["recompose", try #require(session.directory), "--replace", "--loudness", "off"])
        try #require(replay.exitCode == 0, "\(replay.stderr)")
        try Self.expectGrey(combined, from: at)
        let replayed = try #require(try session.manifest()["composite"] as? [String: Any])
        #expect((replayed["filterTimeline"] as? [[String: Any]])?.first?["filter"] as? String == "bw 100%", "\(replayed)")
        #expect((replayed["mixTimeline"] as? [[String: Any]])?.first?["mix"] as? String == "guest", "\(replayed)")
        try Self.expectOneVoice(combined, from: mixAt)
    }

    /// Both voices' bursts summed before `at` (peak near 0.5), the guest's alone after
    /// (near 0.25).
    static func expectOneVoice(_ path: String, from at: Int64) throws {
        let end = Int64(try MediaProbe.probe(path: path).durationSeconds * 1e9)
        func peak(_ from: Int64, _ to: Int64) throws -> Float {
            let track = try #require(try AudioTrackReader.read(path: path, fromNanoseconds: from, toNanoseconds: to))
            return track.samples.map(abs).max() ?? 0
        }
        let before = try peak(0, at), after = try peak(at + 50_000_000, end)
        #expect(before > 0.4 && before < 0.6, "two voices before the mix changed: peak \(before)")
        #expect(after > 0.17 && after < 0.33, "the guest alone after: peak \(after)")
    }

    /// Frames before `at` in colour, every frame from it grey (Cb at 128).
    static func expectGrey(_ path: String, from at: Int64) throws {
        var before: [Double] = [], after: [Double] = []
        try MediaProbe.forEachFrame(path: path) { frame in
            let image = frame.image
            var deviation = 0
            for row in 0..<image.chromaHeight {
                for x in 0..<image.chromaWidth { deviation += abs(Int(image.cb[row * image.chromaStride + x]) - 128) }
            }
            let mean = Double(deviation) / Double(image.chromaWidth * image.chromaHeight)
            if frame.ptsNanoseconds >= at { after.append(mean) } else { before.append(mean) }
        }
        #expect(before.count > 10 && after.count > 10, "\(before.count) frames before, \(after.count) after")
        #expect(before.allSatisfy { $0 > 8 }, "colour before the change: \(before.prefix(5))…")
        #expect(after.allSatisfy { $0 < 2 }, "grey from the change on: \(after.prefix(5))…")
    }
}
