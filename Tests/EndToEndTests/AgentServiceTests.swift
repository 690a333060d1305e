import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// `dualcam-agent run` as systemd drives it: SIGTERM during a coordinated recording
    /// must end it at a segment boundary, with every segment in the spool whole.
    @Suite struct AgentServiceTests {
        @Test func sigtermDuringASessionLeavesWholeSegments() throws {
            let root = NSTemporaryDirectory() + "dualcam-service-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: root) }
            let id = try Child("dualcam-coordinator", ["id", "--state", root + "/coordinator"])
            #expect(id.finish() == 0)
            let coordinatorID = id.out.all().trimmingCharacters(in: .whitespacesAndNewlines)
            let agent = try Child("dualcam-agent", ["run", "--source", "synthetic", "--state", root + "/agent", "--port", "0", "--no-mdns",
                                                    "--role", "host", "--trust", coordinatorID, "--size", "320x180",
                                                    "--segment-seconds", "1", "--first-pairing-window", "0"])
            defer { agent.stop() }
            let listening = try #require(agent.waitForLine(containing: "LISTENING"), "agent: \(agent.err.text)")
            let fields = listening.split(separator: " ")
            let port = try #require(fields.first { $0.hasPrefix("port=") }?.dropFirst(5))
            let agentID = try #require(fields.first { $0.hasPrefix("id=") }?.dropFirst(3))
            let coordinator = try Child("dualcam-coordinator", ["start", "--state", root + "/coordinator",
                                                                "--agent", "127.0.0.1:\(port),\(agentID)", "--duration", "30", "--countdown", "0",
                                                                "--size", "320x180", "--out", root + "/out"] + DemoRun.debugBuildClockGate)
            defer { coordinator.stop() }
            let deadline = Date().addingTimeInterval(60)
            while !agent.err.text.contains("recording ") && Date() < deadline { usleep(100_000) }
            try #require(agent.err.text.contains("recording "), "agent never started recording: \(agent.err.text)\n\(coordinator.err.text)")
            usleep(3_500_000)
            agent.process.terminate()
            #expect(agent.finish(seconds: 15) == 0, "\(agent.err.all().suffix(2000))")
            #expect(agent.err.all().contains("finishing the current segment"))

            let spool = root + "/agent/spool"
            let session = try #require(try FileManager.default.contentsOfDirectory(atPath: spool).first)
            let manifest = try String(contentsOfFile: spool + "/" + session + "/manifest.jsonl", encoding: .utf8)
            let listed = manifest.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(listed.count >= 2, "\(manifest)")
            let files = try FileManager.default.contentsOfDirectory(atPath: spool + "/" + session).filter { $0.hasSuffix(".ts") }
            #expect(files.count == listed.count, "files \(files.sorted()), listed \(listed.count)")
            var frames = 0
            for entry in listed {
                let path = try #require(entry["path"] as? String)
                let probe = try MediaProbe.probe(path: path)
                #expect(probe.frameCount == entry["frameCount"] as? Int, "\(path)")
                frames += probe.frameCount
            }
            // The signal came 3.5 s after StartAt, whose T0 lies a second or so ahead: about
            // 2 s recorded, every frame of it kept up to the segment the signal ended.
            #expect((45...105).contains(frames), "\(frames) frames")
        }
    }
}
