import Foundation
import Testing

extension EndToEnd {
    /// Issue 36: an agent whose camera is not there started, announced itself, looked
    /// ready, and the take recorded the other camera with one warning line. The agent now
    /// says so at start, the coordinator shows it NOT READY with the reason, and `start`
    /// does not leave a node out unasked.
    @Suite struct MissingCameraTests {
        static let missing = "camera /dev/video9 is missing: plug it in, or set `device =` in agent.conf"

        @Test func aMissingCameraIsFoundAtTheNodeNotAtTheTake() throws {
            try #require(!FileManager.default.fileExists(atPath: "/dev/video9"), "this machine has a /dev/video9; the test needs it absent")
            let rig = try RecoveryRig(extra: ["host": ["--source", "v4l2", "--device", "/dev/video9"]])
            let said = rig.agents[0].waitForErr(containing: Self.missing, seconds: 10)
            #expect(said != nil, "the agent says it at start: \(rig.agents[0].err.text)")
            #expect(said?.contains("warning") == true, "\(said ?? "")")

            // No terminal: refused, naming the node and the reason, before anything is prepared.
            let refused = try rig.coordinator(["start", "--duration", "2", "--countdown", "0", "--size", "320x240"])
            #expect(refused.finish(seconds: 60) != 0)
            let refusal = refused.err.all()
            #expect(refusal.contains("rec-host [host] is NOT READY: \(Self.missing)"), "\(refusal)")
            #expect(refusal.contains("Not recording without it: start again once it is ready, or give --allow-missing to record without it."),
                    "\(refusal)")
            #expect(rig.sessionDirectory == nil)
            for agent in rig.agents { #expect(!agent.err.text.contains("prepared "), "\(agent.err.text)") }

            // --allow-missing: the guest alone, the host named in the pre-flight and the
            // warnings, each a sentence.
            let allowed = try rig.coordinator(["start", "--duration", "2", "--countdown", "0", "--size", "320x240", "--allow-missing"])
            #expect(allowed.finish(seconds: 90) == 0, "\(allowed.err.all())")
            let err = allowed.err.all()
            #expect(err.contains("  NOT READY: rec-host [host]: \(Self.missing)"), "the pre-flight: \(err)")
            #expect(err.contains("recording without rec-host [host]: \(Self.missing)"), "the warning: \(err)")
            #expect(!rig.agents[0].err.text.contains("prepared "), "the host was not asked to record: \(rig.agents[0].err.text)")
            let manifest = try rig.manifest()
            let cameras = try #require(manifest["cameras"] as? [[String: Any]])
            #expect(cameras.count == 1, "\(cameras)")
            #expect((cameras.first?["statistics"] as? [String: Any])?["name"] as? String == "rec-guest", "\(cameras)")
            let warnings = manifest["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.hasPrefix("recording without rec-host [host]: camera /dev/video9 is missing") }, "\(warnings)")
        }
    }
}

extension EndToEnd.MissingCameraTests {
    /// The agent keeps checking: a node that appears where the camera should be, and goes
    /// again, is said by the agent's log and, through its Telemetry, by a rig that is up
    /// (`serve`), each time as it happens rather than at the next take.
    @Test func aCameraThatChangesIsToldAsItHappens() throws {
        let device = NSTemporaryDirectory() + "dualcam-video-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: device) }
        let rig = try RecoveryRig(extra: ["host": ["--source", "v4l2", "--device", device]])
        let serve = try Child("dualcam-coordinator", ["serve", "--no-studio", "--countdown", "0", "--size", "320x240",
                                                      "--state", rig.root + "/coordinator", "--out", rig.root + "/out"]
                              + DemoRun.debugBuildClockGate + rig.agentOptions)
        defer { serve.stop() }
        try #require(serve.waitForErr(containing: "rig up", seconds: 60) != nil, "\(serve.errTail())")
        #expect(serve.waitForErr(containing: "rec-host [host] is NOT READY: camera \(device) is missing: plug it in", seconds: 10) != nil,
                "said as the rig comes up: \(serve.errTail())")
        // A `start` from a pipe does not record without it: it says why and what to do.
        serve.type("start")
        #expect(serve.waitForErr(containing: "Not recording without it: start again once it is ready, or give --allow-missing", seconds: 10) != nil,
                "\(serve.errTail())")
        #expect(!serve.err.text.contains("recording 2"), "a take started without the host: \(serve.errTail())")
        // A file is no camera: a new reason, within the 2 s check and a Telemetry.
        #expect(FileManager.default.createFile(atPath: device, contents: nil))
        #expect(serve.waitForErr(containing: "rec-host is NOT READY: \(device) is not a camera", seconds: 10) != nil, "\(serve.errTail())")
        #expect(rig.agents[0].waitForErr(containing: "\(device) is not a camera", seconds: 5) != nil, "\(rig.agents[0].err.text)")
        try FileManager.default.removeItem(atPath: device)
        let gone = serve.err.text.components(separatedBy: "rec-host is NOT READY: camera \(device) is missing").count - 1
        let deadline = Date().addingTimeInterval(10)
        while serve.err.text.components(separatedBy: "rec-host is NOT READY: camera \(device) is missing").count - 1 == gone,
              Date() < deadline { usleep(100_000) }
        #expect(serve.err.text.components(separatedBy: "rec-host is NOT READY: camera \(device) is missing").count - 1 == gone + 1,
                "missing again: \(serve.errTail())")
        let agentSaid = rig.agents[0].err.text.components(separatedBy: "camera \(device) is missing").count - 1
        #expect(agentSaid == 2, "the agent said it at start and once when it went again, not every 2 s: \(rig.agents[0].err.text)")
    }
}
