import Foundation
import Testing

extension EndToEnd {
    /// A node that cannot do all it was asked records what it can, and the session is
    /// finished with the others and a warning: never a session lost to one node.
    @Suite struct BrokenNodeTests {
        /// The guest's microphone does not exist: it used to record 0 frames and fail the
        /// session ("no segment arrived"), and every later `start` in the folder with it.
        @Test func aMissingMicrophoneCostsTheSoundNotThePictures() throws {
            let rig = try RecoveryRig(extra: ["guest": ["--microphone", "hw:97,0"]])
            let start = try rig.coordinator(["start", "--duration", "3", "--countdown", "0", "--size", "320x240"])
            #expect(start.finish(seconds: 90) == 0, "\(start.err.all())")
            let err = start.err.all()
            #expect(err.contains("rec-guest: no sound: microphone hw:97,0"), "said before the start: \(err)")
            let preflight = err.split(separator: "\n").filter { $0.contains("[guest]: TEST PATTERN") }
            #expect(preflight.count == 1 && preflight[0].contains("; no sound) · NO SOUND"), "the pre-flight says it loudly: \(err)")
            try rig.expectEveryFrameInSync(frames: 90)
            let manifest = try rig.manifest()
            let warnings = manifest["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("rec-guest: no sound") }, "\(warnings)")
            let cameras = try #require(manifest["cameras"] as? [[String: Any]])
            #expect(cameras.count == 2)
            #expect(cameras[0]["soundFile"] as? String != nil, "the host keeps its sound: \(cameras[0])")
            #expect(cameras[1]["soundFile"] == nil, "the guest had none: \(cameras[1])")

            let show = try rig.coordinator(["show", try #require(rig.sessionDirectory)])
            #expect(show.finish() == 0)
            #expect(show.out.all().contains("no sound"), "show names the warning: \(show.out.all())")
        }

        /// `--require`: a take does not start without the agents named (by name or role),
        /// before anything is recorded; nothing is left on any agent.
        @Test func aRequiredAgentThatIsNotThereStopsTheStart() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "2", "--countdown", "0", "--size", "320x240", "--require", "host,cam3"])
            #expect(start.finish(seconds: 60) != 0)
            let err = start.err.all()
            #expect(err.contains("not starting without cam3 (required)"), "\(err)")
            #expect(rig.sessionDirectory == nil)
            for agent in rig.agents { #expect(!agent.err.text.contains("prepared "), "\(agent.err.text)") }
        }

        /// An agent dies for good mid-take and the coordinator with it: `resume --without`
        /// finishes the session with what is held of that agent, at once, instead of
        /// waiting for it (or never finishing, and holding every later `start`).
        @Test func resumeWithoutAnAgentThatIsGoneFinishesAtOnce() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "7", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 3)
            kill(rig.agents[1].process.processIdentifier, SIGKILL)
            kill(start.process.processIdentifier, SIGKILL)
            _ = start.finish(seconds: 5)
            Thread.sleep(forTimeInterval: 1)

            let wrong = try rig.coordinator(["resume", "--without", "nobody"])
            #expect(wrong.finish() != 0)
            #expect(wrong.err.all().contains("its agents are rec-host, rec-guest"), "\(wrong.err.all())")

            let began = Date()
            let resume = try rig.coordinator(["resume", "--without", "rec-guest", "--reconnect-grace", "60"])
            // The host records on to the take's set length, then hands in the rest.
            #expect(resume.waitForErr(containing: "finishing without rec-guest", seconds: 30) != nil, "\(resume.err.all())")
            #expect(resume.finish(seconds: 60) == 0, "\(resume.err.all())")
            #expect(Date().timeIntervalSince(began) < 40, "waited for the agent left out")
            let manifest = try rig.manifest()
            let cameras = try #require(manifest["cameras"] as? [[String: Any]])
            let frames = cameras.compactMap { ($0["statistics"] as? [String: Any])?["framesCaptured"] as? Int }
            #expect(frames.count == 2 && frames[0] > frames[1] && frames[1] > 0,
                    "host recorded on, the guest has what was held of it: \(frames)")
        }
    }
}
