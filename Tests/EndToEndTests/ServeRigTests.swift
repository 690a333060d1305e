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
