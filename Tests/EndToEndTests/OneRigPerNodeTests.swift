import Foundation
import Testing

extension EndToEnd {
    /// A node in a take belongs to that take's coordinator run until it ends. Two
    /// `start`s 0.3 s apart, or two coordinators of one identity 3 s apart, were both
    /// accepted: the agents recorded both takes into their spools, their connections were
    /// taken back and forth every 2 s, and a take once failed reading a segment the other
    /// had written under the same take ID.
    @Suite struct OneRigPerNodeTests {
        /// A second `start` on the same laptop (same state folder) is refused at once,
        /// naming the process that drives the agents; the first take loses nothing.
        @Test func aSecondStartOnTheSameLaptopIsRefusedAtOnce() throws {
            let rig = try RecoveryRig()
            let first = try rig.coordinator(["start", "--duration", "6", "--countdown", "0", "--size", "320x240"])
            usleep(300_000)
            let second = try rig.coordinator(["start", "--duration", "6", "--countdown", "0", "--size", "320x240"])
            let began = Date()
            let status = second.finish(seconds: 20)
            let err = second.err.all()
            #expect(status != 0, "\(err)")
            #expect(Date().timeIntervalSince(began) < 5, "refused only after \(Date().timeIntervalSince(began)) s")
            #expect(err.contains("another dualcam-coordinator drives this laptop's agents (pid \(first.process.processIdentifier), start)"),
                    "\(err)")
            #expect(first.finish(seconds: 90) == 0, "\(first.err.all())")
            #expect(!first.err.all().contains("lost rec-"), "\(first.err.all())")
            // The files' paths are said before the sync checks that read them back for
            // seconds (a loaded machine printed them 5.8 s after the files were final).
            let said = first.err.all()
            if let files = said.range(of: "\nfiles: "), let checks = said.range(of: "clock truth (frame codes)") {
                #expect(files.lowerBound < checks.lowerBound, "\(said)")
            } else {
                Issue.record("no files line or no sync check: \(said)")
            }
            try rig.expectEveryFrameInSync(frames: 180)
            #expect(try FileManager.default.contentsOfDirectory(atPath: rig.root + "/out").filter { !$0.hasPrefix(".") }.count == 1)
        }

        /// Two coordinators of one identity (its state folder copied to a second laptop):
        /// the agents turn the second one away with a sentence naming the take, and the
        /// first take's links are never taken from it.
        @Test func aSecondRunOfTheSameIdentityCannotTakeTheNodes() throws {
            let rig = try RecoveryRig()
            let first = try rig.coordinator(["start", "--duration", "8", "--countdown", "0", "--size", "320x240"])
            try #require(first.waitForErr(containing: "recording ", seconds: 60) != nil, "\(first.err.all())")
            let copy = rig.root + "/coordinator-copy"
            try FileManager.default.copyItem(atPath: rig.root + "/coordinator", toPath: copy)
            try? FileManager.default.removeItem(atPath: copy + "/rig.lock")
            let second = try Child("dualcam-coordinator", ["start", "--duration", "4", "--countdown", "0", "--size", "320x240",
                                                           "--state", copy, "--out", rig.root + "/out2"]
                                   + DemoRun.debugBuildClockGate + rig.agentOptions)
            let status = second.finish(seconds: 60)
            let err = second.err.all()
            #expect(status != 0, "\(err)")
            #expect(err.contains("is recording take 2"), "the refusal names the take: \(err)")
            #expect(first.finish(seconds: 90) == 0, "\(first.err.all())")
            let firstErr = first.err.all()
            #expect(!firstErr.contains("lost rec-") && !firstErr.contains("reconnected"), "\(firstErr)")
            try rig.expectEveryFrameInSync(frames: 240)
            try rig.expectCompositeWhole(frames: 240)
            // Nothing of a second take went into the agents' spools.
            for role in ["host", "guest"] {
                let spool = rig.root + "/" + role + "/spool"
                let takes = (try? FileManager.default.contentsOfDirectory(atPath: spool))?.filter { !$0.hasPrefix(".") } ?? []
                #expect(takes.count <= 1, "\(role) spooled \(takes)")
            }
        }
    }
}
