import DualCamCore
import DualCamMedia
import Foundation
import Testing

/// Two agents recording for a coordinator that is then let down: its connection cut, or
/// the coordinator killed outright. What is judged is what a user gets: every frame in
/// each camera's file, and a composite that never shows "no signal" for frames that exist.
final class RecoveryRig {
    let root = NSTemporaryDirectory() + "dualcam-recovery-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    var agents: [Child] = []
    var ports: [Int] = []
    var ids: [String] = []
    let coordinatorID: String
    /// Further agent options by role (e.g. a microphone that does not exist).
    let extra: [String: [String]]

    init(extra: [String: [String]] = [:]) throws {
        self.extra = extra
        let id = try Child("dualcam-coordinator", ["id", "--state", root + "/coordinator"])
        #expect(id.finish() == 0)
        coordinatorID = id.out.all().trimmingCharacters(in: .whitespacesAndNewlines)
        for role in ["host", "guest"] {
            let agent = try Child("dualcam-agent", agentArguments(role: role, port: 0))
            agents.append(agent)
            let line = try #require(agent.waitForLine(containing: "LISTENING"), "agent: \(agent.err.text)")
            let fields = Dictionary(uniqueKeysWithValues: line.split(separator: " ").dropFirst().compactMap { part -> (String, String)? in
                let kv = part.split(separator: "=", maxSplits: 1)
                return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
            })
            ports.append(try #require(fields["port"].flatMap(Int.init)))
            ids.append(try #require(fields["id"]))
        }
    }

    /// The agents' own encoder preset. What these rigs test (cuts, kills, disks, stops) does
    /// not hang on the preset, and measuring every preset at each take (`auto`: 2.5 s of
    /// both cores at every Prepare, medium chosen at 320x240) was a third of a short test's
    /// CPU. `auto` is judged where it is the point: PresetBudgetTests, the demo's tests.
    static let fixedPreset = ["--preset", "ultrafast"]

    func agentArguments(role: String, port: Int) -> [String] {
        ["run", "--source", "synthetic", "--role", role, "--name", "rec-\(role)", "--listen", "127.0.0.1",
         "--port", "\(port)", "--no-mdns", "--state", root + "/" + role, "--trust", coordinatorID] + Self.fixedPreset + (extra[role] ?? [])
    }

    /// Kills agent `i` outright and starts it again on the same port and state; returns
    /// how long it was down, from the kill to its new process listening (seconds).
    @discardableResult
    func restartAgent(_ i: Int, downSeconds: Double) throws -> Double {
        let killed = Date()
        kill(agents[i].process.processIdentifier, SIGKILL)
        _ = agents[i].finish(seconds: 5)
        Thread.sleep(forTimeInterval: downSeconds)
        agents[i] = try Child("dualcam-agent", agentArguments(role: i == 0 ? "host" : "guest", port: ports[i]))
        #expect(agents[i].waitForLine(containing: "LISTENING") != nil, "restarted agent: \(agents[i].err.text)")
        return Date().timeIntervalSince(killed)
    }

    func coordinator(_ arguments: [String], agentPorts: [Int]? = nil, environment: [String: String] = [:]) throws -> Child {
        let targets = zip(agentPorts ?? ports, ids).flatMap { ["--agent", "127.0.0.1:\($0),\($1)"] }
        let state = ["start", "resume", "delete"].contains(arguments[0]) ? ["--state", root + "/coordinator"] : []
        return try Child("dualcam-coordinator", arguments + state + ["--out", root + "/out"]
                            + (arguments[0] == "start" ? DemoRun.debugBuildClockGate + targets : []), environment: environment)
    }

    /// `--agent` for each of the rig's agents, with its device ID.
    var agentOptions: [String] { zip(ports, ids).flatMap { ["--agent", "127.0.0.1:\($0),\($1)"] } }

    var session: RecordedSession { RecordedSession(out: root + "/out") }
    var sessionDirectory: String? { session.directory }
    func manifest() throws -> [String: Any] { try session.manifest() }
    func codes(_ prefix: String) throws -> [UInt32] { try session.codes(prefix) }
    func expectEveryFrameInSync(frames: Int) throws { try session.expectEveryFrameInSync(frames: frames) }
    func expectCompositeWhole(frames: Int) throws { try session.expectCompositeWhole(frames: frames) }

    deinit {
        for agent in agents { agent.stop() }
        if ProcessInfo.processInfo.environment["DUALCAM_KEEP_TEST_FILES"] != nil { print("kept \(root)"); return }
        try? FileManager.default.removeItem(atPath: root)
    }
}

extension EndToEnd {
    @Suite struct SessionRecoveryTests {
        /// The coordinator's connection to the host agent is cut for 4 s mid-session: the
        /// agent records on, the coordinator reconnects and resumes, and the host's spooled
        /// segments fill the gap before the files are closed.
        @Test func aCutConnectionIsResumedWithNothingMissing() throws {
            let rig = try RecoveryRig()
            let proxy = try CuttableProxy(targetPort: rig.ports[0])
            defer { proxy.close() }
            let start = try rig.coordinator(["start", "--duration", "10", "--countdown", "0", "--size", "320x240",
                                             "--reconnect-grace", "20"], agentPorts: [proxy.port, rig.ports[1]])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 3)
            proxy.cut(seconds: 4)
            #expect(start.finish(seconds: 90) == 0, "\(start.err.all())")
            let err = start.err.all()
            #expect(err.contains("lost rec-host") && err.contains("reconnected to rec-host"), "\(err)")
            try rig.expectEveryFrameInSync(frames: 300)
            try rig.expectCompositeWhole(frames: 300)
            let cameras = try #require(try rig.manifest()["cameras"] as? [[String: Any]])
            #expect((cameras[0]["statistics"] as? [String: Any])?["reconnects"] as? Int == 1)
        }

        /// The coordinator is killed (SIGKILL) mid-session; `resume` finishes the session
        /// from what the killed one held and what the agents spooled meanwhile.
        @Test func aKilledCoordinatorIsFinishedByResume() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "8", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 4)
            kill(start.process.processIdentifier, SIGKILL)
            _ = start.finish(seconds: 5)
            let directory = try #require(rig.sessionDirectory)
            #expect(!FileManager.default.fileExists(atPath: directory + "/manifest.json"))

            let list = try rig.coordinator(["list"])
            #expect(list.finish() == 0)
            #expect(list.out.all().contains("unfinished"), "\(list.out.all())")

            let resume = try rig.coordinator(["resume"])
            #expect(resume.finish(seconds: 90) == 0, "\(resume.err.all())")
            #expect(resume.err.all().contains("segments held already"))
            try rig.expectEveryFrameInSync(frames: 240)
            try rig.expectCompositeWhole(frames: 240)
        }

        /// A segment the killed coordinator held is corrupted on its disk before `resume`:
        /// its checksum no longer matches, so it is set aside and fetched again from the
        /// agent's spool, and the files hold every frame (it went into them unnoticed).
        @Test func aHeldSegmentDamagedOnDiskIsFetchedAgainAtResume() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "8", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 5)
            kill(start.process.processIdentifier, SIGKILL)
            _ = start.finish(seconds: 5)
            let directory = try #require(rig.sessionDirectory)
            let segment = directory + "/segments/host/seg-000000.ts"
            let handle = try #require(FileHandle(forUpdatingAtPath: segment), "no \(segment)")
            try handle.seek(toOffset: 4000)
            try handle.write(contentsOf: Data(repeating: 0x5A, count: 4000))
            try handle.close()

            let resume = try rig.coordinator(["resume"])
            #expect(resume.finish(seconds: 90) == 0, "\(resume.err.all())")
            #expect(resume.err.all().contains("segment 0 changed on this disk"), "\(resume.err.all())")
            try rig.expectEveryFrameInSync(frames: 240)
            try rig.expectCompositeWhole(frames: 240)
        }

        /// A resumed take stopped (Enter) before its agents have reconnected: each hears the
        /// Stop once it is back. The rig once handled an agent's HelloAck before it held the
        /// link, so the Resume and Stop sent in answer went nowhere and the agent recorded on
        /// for as long as its disk lasted (seen once in CI).
        @Test func aResumedTakeStoppedBeforeItsAgentsAreBackStopsThem() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 3)
            kill(start.process.processIdentifier, SIGKILL)
            _ = start.finish(seconds: 5)
            let resume = try rig.coordinator(["resume"])
            resume.type("")
            #expect(resume.finish(seconds: 60) == 0, "\(resume.err.all())")
            for agent in rig.agents {
                #expect(agent.waitForErr(containing: " finished: ", seconds: 10) != nil, "still recording: \(agent.err.text.suffix(800))")
            }
            #expect(FileManager.default.fileExists(atPath: (rig.sessionDirectory ?? "/nonexistent") + "/manifest.json"))
        }

        /// The coordinator's output disk fills mid-take (another program, here dd): the
        /// coordinator stops writing, says the disk is full and to free space and resume,
        /// and leaves the agents recording (it used to quit with a bare "not enough space").
        /// Once space is freed, `resume` gives every frame of both cameras.
        @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
        func aFullOutputDiskLeavesTheAgentsRecordingAndResumeFinishes() throws {
            let rig = try RecoveryRig()
            let out = rig.root + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try #require(Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", out]) == 0, "cannot mount a tmpfs at \(out)")
            defer { _ = Self.run("/bin/umount", [out]) }
            let start = try rig.coordinator(["start", "--duration", "12", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 3)
            _ = Self.run("/bin/dd", ["if=/dev/zero", "of=\(out)/filler", "bs=65536", "count=1000"])
            #expect(start.finish(seconds: 60) != 0, "\(start.err.all())")
            let err = start.err.all()
            #expect(err.contains("the disk holding") && err.contains("is full") && err.contains("did not stop the agents")
                    && err.contains("dualcam-coordinator resume"), "\(err.suffix(3000))")
            // One sentence, said once, in words: no Foundation error dump.
            #expect(err.components(separatedBy: "did not stop the agents").count == 2, "said more than once: \(err.suffix(3000))")
            #expect(!err.contains("NSCocoaErrorDomain") && !err.contains("Error Domain="), "\(err.suffix(3000))")
            // The agents record on to the planned stop, every segment spooled.
            for role in ["host", "guest"] {
                let spool = rig.root + "/" + role + "/spool"
                let session = try #require(try FileManager.default.contentsOfDirectory(atPath: spool).first { !$0.hasPrefix(".") })
                let listed = { ((try? String(contentsOfFile: spool + "/" + session + "/manifest.jsonl", encoding: .utf8)) ?? "")
                    .split(separator: "\n").count }
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline && listed() < 6 { Thread.sleep(forTimeInterval: 0.2) }
                #expect(listed() == 6, "\(role) spooled \(listed()) of 6 segments")
            }
            try FileManager.default.removeItem(atPath: out + "/filler")
            let resume = try rig.coordinator(["resume"])
            #expect(resume.finish(seconds: 90) == 0, "\(resume.err.all())")
            try rig.expectEveryFrameInSync(frames: 360)
            try rig.expectCompositeWhole(frames: 360)
        }

        static func run(_ program: String, _ arguments: [String]) -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return -1 }
            process.waitUntilExit()
            return process.terminationStatus
        }

        /// The guest's segment file is removed while it is being written (it ended the
        /// agent's whole recording, 14 s lost): that segment is lost, the recording goes on in
        /// the next, and the session finishes with the gap named.
        @Test func aSegmentRemovedWhileBeingWrittenCostsOnlyThatSegment() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "8", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 3)
            let spool = rig.root + "/guest/spool"
            let session = try #require(try FileManager.default.contentsOfDirectory(atPath: spool).first { !$0.hasPrefix(".") })
            let listed = ((try? String(contentsOfFile: spool + "/" + session + "/manifest.jsonl", encoding: .utf8)) ?? "")
                .split(separator: "\n").count
            let open = spool + "/" + session + String(format: "/seg-%06d.ts", listed)
            try FileManager.default.removeItem(atPath: open)
            #expect(start.finish(seconds: 90) == 0, "\(start.err.all())")
            #expect(start.err.all().contains("segments [\(listed)]"), "\(start.err.all())")
            #expect(rig.agents[1].err.text.contains("segment \(listed) failed while it was written"), "\(rig.agents[1].err.text.suffix(3000))")
            let host = try rig.codes("DualCam_Host_")
            let guest = try rig.codes("DualCam_Guest_")
            #expect(host.count == 240)
            let cameras = try #require(try rig.manifest()["cameras"] as? [[String: Any]])
            // Where the guest's frames break off, to tell a lost segment from any other loss.
            let gaps = zip(guest, guest.dropFirst()).enumerated()
                .filter { abs(DCTC.differenceNanoseconds($1.1, $1.0) - 33_333_333) > 1_000_000 }
                .map { "after frame \($0.offset): \($0.element.0) → \($0.element.1)" }
            #expect(guest.count == 180, "guest has \(guest.count) frames; gaps \(gaps); \(cameras[1]); agent: \(rig.agents[1].err.text.suffix(2000))")
            #expect(gaps.count == 1, "the lost segment should be the guest's only gap: \(gaps)")
            #expect((cameras[1]["statistics"] as? [String: Any])?["missingSegments"] as? [Int] == [listed], "\(cameras[1])")
        }

        /// The guest's process is frozen (SIGSTOP) for 4 s mid-take, then let go: the take
        /// finishes, the guest's file has exactly the frames it captured, each on the
        /// host's instant, and the manifest's counts agree with the file: captured is what
        /// the file holds, and captured plus dropped is the take's length.
        @Test func aFrozenAgentLosesOnlyTheFrozenSecondsAndSaysSo() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "10", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 3)
            let guestPID = rig.agents[1].process.processIdentifier
            kill(guestPID, SIGSTOP)
            Thread.sleep(forTimeInterval: 4)
            kill(guestPID, SIGCONT)
            #expect(start.finish(seconds: 90) == 0, "\(start.err.all())")
            let host = try rig.codes("DualCam_Host_")
            let guest = try rig.codes("DualCam_Guest_")
            #expect(host.count == 300)
            #expect(guest.count > 150 && guest.count < 200, "guest has \(guest.count) frames")
            // Each guest frame shows the instant of the host frame of the same number.
            let offGrid = guest.filter { g in
                let n = Int((Double(DCTC.differenceNanoseconds(g, host[0])) / 33_333_333.3).rounded())
                return !host.indices.contains(n) || abs(DCTC.differenceNanoseconds(g, host[n])) > 500_000
            }
            #expect(offGrid.isEmpty, "\(offGrid.count) guest frames on no host instant: \(offGrid.prefix(5))")
            let cameras = try #require(try rig.manifest()["cameras"] as? [[String: Any]])
            let stats = try #require(cameras[1]["statistics"] as? [String: Any])
            let captured = try #require(stats["framesCaptured"] as? Int)
            let dropped = try #require(stats["framesDropped"] as? Int)
            #expect(captured == guest.count, "\(stats)")
            #expect(abs(captured + dropped - 300) <= 1, "captured \(captured) + dropped \(dropped) against 300")
        }

        /// Hundreds of idle TCP connections against the guest while it records (1100 of them
        /// used up an agent's open files and its recording failed): the agent holds a few,
        /// and the take keeps every frame of both cameras.
        @Test func aFloodOfIdleConnectionsDoesNotDisturbARecording() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "6", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            var sockets: [Int32] = []
            defer { for fd in sockets { close(fd) } }
            for _ in 0..<400 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard fd >= 0 else { break }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(rig.ports[1]).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                sockets.append(fd)
                if connected != 0 { break }
            }
            #expect(sockets.count == 400)
            Thread.sleep(forTimeInterval: 0.5)
            let held = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(rig.agents[1].process.processIdentifier)/fd").count) ?? -1
            #expect(held > 0 && held < 100, "the guest holds \(held) open files under the flood")
            #expect(start.finish(seconds: 90) == 0, "\(start.err.all())")
            try rig.expectEveryFrameInSync(frames: 180)
            try rig.expectCompositeWhole(frames: 180)
        }

        /// Half-open TLS connections from the coordinator's own address (here 127.0.0.1,
        /// as on a laptop running a hostile program): the agent's admission closes the
        /// oldest strangers, and the paired coordinator's own handshake still gets through,
        /// three takes in a row (`start` once failed 3 of 3 times, told to pair an agent that
        /// was paired).
        @Test func aPairedCoordinatorGetsThroughAHalfOpenTLSFlood() throws {
            let rig = try RecoveryRig()
            let flooders = try (0..<2).map { _ in
                try Child(path: "/usr/bin/env", ["python3", VividRun.repository + "/tools/bench/half-open-tls-flood.py",
                                                  "127.0.0.1", "\(rig.ports[0])", "40", "300"])
            }
            defer { for flooder in flooders { flooder.stop() } }
            Thread.sleep(forTimeInterval: 2)
            for take in 1...3 {
                let start = try rig.coordinator(["start", "--duration", "2", "--countdown", "0", "--size", "320x240"])
                #expect(start.finish(seconds: 90) == 0, "take \(take) under the flood: \(start.err.all())")
                #expect(!start.err.all().contains("pair them first"), "\(start.err.all())")
            }
            #expect(rig.agents[0].err.text.contains("closed the oldest unauthenticated connection"), "the flood never filled the agent")
            // The hardware encoder is probed once per agent process, not on every take (FFmpeg
            // logged "can't configure encoder" for h264_v4l2m2m at each of them).
            for agent in rig.agents {
                let failures = agent.err.text.components(separatedBy: "can't configure encoder").count - 1
                #expect(failures <= 1, "the hardware encoder failed \(failures) times in 3 takes")
            }
        }

        /// A bad SD card: with the coordinator killed, one of the guest's spooled segments
        /// is removed and another cut short before they were uploaded. `resume` (which hung
        /// on the first and failed forever on the second) finishes the session around them
        /// within its time: the host's file whole, the guest's holding every other frame in
        /// sync, the two segments named as gone or damaged, and the guest no longer owing
        /// the session, so a later `start` is not held up by it.
        @Test func segmentsGoneOrDamagedInASpoolAreFinishedAround() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "8", "--countdown", "0", "--size", "320x240"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 1)
            kill(start.process.processIdentifier, SIGKILL)
            _ = start.finish(seconds: 5)
            // The agents record on to the stop instant; then their spools are final.
            let spool = rig.root + "/guest/spool"
            let session = try #require(try FileManager.default.contentsOfDirectory(atPath: spool).first { !$0.hasPrefix(".") })
            let segment = { (i: Int) in spool + "/" + session + String(format: "/seg-%06d.ts", i) }
            let listed = { ((try? String(contentsOfFile: spool + "/" + session + "/manifest.jsonl", encoding: .utf8)) ?? "")
                .split(separator: "\n").count }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && listed() < 4 { Thread.sleep(forTimeInterval: 0.2) }
            try #require(listed() == 4, "the guest spooled \(listed()) of 4 segments")
            try FileManager.default.removeItem(atPath: segment(3))
            #expect(truncate(segment(2), 1000) == 0)

            let resume = try rig.coordinator(["resume"])
            #expect(resume.finish(seconds: 90) == 0, "\(resume.err.all())")
            let err = resume.err.all()
            #expect(err.contains("segments [2, 3] were gone or damaged in its spool"), "\(err)")
            #expect(rig.agents[1].err.text.contains("segment 3 of \(session) is gone from the spool"))
            #expect(rig.agents[1].err.text.contains("segment 2 of \(session) is damaged in the spool"))
            let host = try rig.codes("DualCam_Host_")
            let guest = try rig.codes("DualCam_Guest_")
            #expect(host.count == 240)
            // Segments 0 and 1 (frames 0-119) are the guest's, each on the host's instant.
            #expect(guest.count == 120, "guest has \(guest.count) frames")
            for (g, h) in zip(guest, host) {
                #expect(abs(DCTC.differenceNanoseconds(g, h)) <= 500_000, "guest \(g) host \(h)")
            }
            let cameras = try #require(try rig.manifest()["cameras"] as? [[String: Any]])
            #expect((cameras[1]["statistics"] as? [String: Any])?["missingSegments"] as? [Int] == [2, 3], "\(cameras[1])")
            // Nothing is owed any more: a second resume finds nothing to finish.
            let again = try rig.coordinator(["resume"])
            #expect(again.finish(seconds: 30) != 0)
            #expect(again.err.all().contains("no unfinished session"), "\(again.err.all())")
        }

        /// The host agent is killed (SIGKILL) and restarted mid-session: what it spooled
        /// before is fetched, and it records the rest of the session again, its frames on
        /// the same timeline; the gap is only the time it was down and relocking its clock.
        @Test func aKilledAgentRejoinsTheRecording() throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "16", "--countdown", "0", "--size", "320x240",
                                             "--reconnect-grace", "20"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 3)
            let down = try rig.restartAgent(0, downSeconds: 2)
            let up = Date()
            #expect(start.waitForErr(containing: "rec-host records again", seconds: 30) != nil, "\(start.err.all())")
            // From the restarted agent listening to the coordinator's StartAt for it (its
            // first frame is stored some 20-70 ms later, its log says).
            let rejoin = Date().timeIntervalSince(up)
            #expect(start.finish(seconds: 90) == 0, "\(start.err.all())")
            #expect(start.err.all().contains("rec-host records again"), "\(start.err.all())")
            let host = try rig.codes("DualCam_Host_")
            let guest = try rig.codes("DualCam_Guest_")
            #expect(guest.count == 480)
            #expect(host.count > 200 && host.count < 470, "host has \(host.count) frames")
            let steps = zip(host, host.dropFirst()).map { DCTC.differenceNanoseconds($1, $0) }
            let gaps = steps.filter { abs($0 - 33_333_333) > 1_000_000 }
            #expect(gaps.count == 1 && gaps.allSatisfy { $0 > 1_000_000_000 }, "steps off the frame period: \(gaps)")
            // The gap runs from the last segment the killed agent completed to the first
            // frame after the rejoin. It was 9.4 s for a 2 s outage (a 2 s reconnect wait,
            // mDNS looks of 2 s, every preset measured again, 3 s of clock lock); the goal
            // is recording again within 2 s of the agent being up.
            if let gap = gaps.first {
                print(String(format: "rejoin: agent down %.2f s (kill to listening), recording again %.2f s after it was up; "
                             + "gap in the file %.2f s (the segment being written at the kill is lost with it)",
                             down, rejoin, Double(gap) / 1e9))
                #expect(rejoin <= 2.0, "recording again \(rejoin) s after the restarted agent was up")
            }
            // After the gap the host is back on the shared timeline: its last frame shows
            // the same instant as the guest's.
            if let h = host.last, let g = guest.last {
                #expect(abs(DCTC.differenceNanoseconds(h, g)) <= 500_000, "last frames: host \(h) guest \(g)")
            }
            let cameras = try #require(try rig.manifest()["cameras"] as? [[String: Any]])
            #expect((cameras[0]["statistics"] as? [String: Any])?["rejoins"] as? Int == 1)
            // The manifest counts what the files hold (it said 197 for a file of 437).
            #expect((cameras[0]["statistics"] as? [String: Any])?["framesCaptured"] as? Int == host.count, "\(cameras[0])")
            #expect((cameras[1]["statistics"] as? [String: Any])?["framesCaptured"] as? Int == guest.count, "\(cameras[1])")
            let composite = try #require(try rig.manifest()["composite"] as? [String: Any])
            #expect(composite["ticks"] as? Int == 480)
        }

        /// The host agent killed before it finished its first segment (its spool holds a
        /// half-written file and no manifest line) and back 6 s later: it records the rest
        /// of the take on the same timeline.
        @Test func anAgentKilledInItsFirstSegmentRejoinsToo() throws {
            let (rig, start) = try Self.hostKilledInItsFirstSegment(takeSeconds: 16)
            #expect(start.err.all().contains("rec-host records again"), "\(start.err.all())")
            let host = try rig.codes("DualCam_Host_")
            let guest = try rig.codes("DualCam_Guest_")
            #expect(guest.count == 480)
            #expect(host.count > 150 && host.count < 330, "host has \(host.count) frames")
            // Its sound starts with its pictures, at the rejoin: it was filled from T0
            // across the 6 s it was down, and that run of sound before the first picture
            // outlasted the demuxer's probing, which lost the host's whole file.
            let streams = try #require(try EditingTests.ffprobe(rig.session.file("DualCam_Host_"))["streams"] as? [[String: Any]])
            let starts = Dictionary(streams.compactMap { s in
                (s["codec_type"] as? String).flatMap { type in (s["start_time"] as? String).flatMap(Double.init).map { (type, $0) } }
            }, uniquingKeysWith: min)
            let video = try #require(starts["video"]), audio = try #require(starts["audio"])
            #expect(video > 5 && abs(audio - video) < 0.2, "host video starts at \(video) s, its sound at \(audio) s")
            let cameras = try #require(try rig.manifest()["cameras"] as? [[String: Any]])
            #expect((cameras[0]["statistics"] as? [String: Any])?["rejoins"] as? Int == 1, "\(cameras[0])")
            if let h = host.last, let g = guest.last {
                #expect(abs(DCTC.differenceNanoseconds(h, g)) <= 500_000, "last frames: host \(h) guest \(g)")
            }
            let composite = try #require(try rig.manifest()["composite"] as? [String: Any])
            #expect(composite["ticks"] as? Int == 480)
        }

        /// The same agent back too near the stop to record again: it is only asked for its
        /// spool, which holds nothing finished. The take waited for it forever after the
        /// stop (the machine ignored "holds nothing" while recording); now it finishes
        /// without it at the stop.
        @Test func anAgentBackNearTheStopHoldingNothingDoesNotHoldTheTake() throws {
            let (rig, start) = try Self.hostKilledInItsFirstSegment(takeSeconds: 10)
            #expect(start.err.all().contains("finishing without rec-host"), "\(start.err.all())")
            #expect(try rig.codes("DualCam_Guest_").count == 300)
        }

        /// A take of `takeSeconds` whose host agent is killed 0.4 s in, before its first
        /// segment is finished, and started again 6 s later; returns once the take ended
        /// well (exit 0 within a minute and a half).
        static func hostKilledInItsFirstSegment(takeSeconds: Int) throws -> (RecoveryRig, Child) {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--duration", "\(takeSeconds)", "--countdown", "0", "--size", "320x240",
                                             "--reconnect-grace", "20"])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 0.4)
            try rig.restartAgent(0, downSeconds: 6)
            #expect(start.finish(seconds: 90) == 0, "\(start.err.all())")
            return (rig, start)
        }

        /// Recording until Enter, with keys pressed on the way (s, then p, which in a split
        /// steps the framing): the changes are in the manifest's layout timeline, written
        /// under today's layout edition; and nothing is written into the user's config (a
        /// key pressed once used to become every later start's layout, unsaid).
        @Test func enterStopsAndALayoutChangeIsKept() throws {
            let rig = try RecoveryRig()
            let config = rig.root + "/config"
            let start = try rig.coordinator(["start", "--countdown", "0", "--size", "320x240", "--layout", "split-vertical"],
                                            environment: ["XDG_CONFIG_HOME": config])
            #expect(start.waitForErr(containing: "recording ", seconds: 60) != nil, "\(start.err.all())")
            Thread.sleep(forTimeInterval: 2)
            start.type("s")
            Thread.sleep(forTimeInterval: 1)
            start.type("p")
            Thread.sleep(forTimeInterval: 1)
            start.type("")
            #expect(start.finish(seconds: 60) == 0, "\(start.err.all())")
            let manifest = try rig.manifest()
            let duration = try #require(manifest["durationSeconds"] as? Double)
            #expect(duration > 2.5 && duration < 6, "recorded \(duration) s")
            let composite = try #require(manifest["composite"] as? [String: Any])
            let timeline = try #require(composite["timeline"] as? [[String: Any]])
            #expect(timeline.compactMap { $0["layout"] as? String }
                    == ["split-vertical:swap", "split-vertical:anchor=center,swap"], "\(timeline)")
            #expect(composite["layoutEdition"] as? Int == LayoutEdition.current.rawValue)
            #expect(!FileManager.default.fileExists(atPath: config + "/dualcam/coordinator.conf"))

            // The config is the user's: its layout is read, named when used, and refused
            // with the file's name when it is not a layout.
            try FileManager.default.createDirectory(atPath: config + "/dualcam", withIntermediateDirectories: true)
            try "layout = pipp\n".write(toFile: config + "/dualcam/coordinator.conf", atomically: true, encoding: .utf8)
            let refused = try rig.coordinator(["start", "--countdown", "0", "--size", "320x240"], environment: ["XDG_CONFIG_HOME": config])
            #expect(refused.finish(seconds: 60) != 0)
            #expect(refused.err.all().contains(config + "/dualcam/coordinator.conf: layout = pipp: unknown layout"), "\(refused.err.all())")

            // A mistyped key is refused by every command that reads the file, naming the
            // file, the line and the key meant (`list` ignored it and listed the default
            // library; `start` only warned).
            try "layout = pip\nlibary = /tmp\n".write(toFile: config + "/dualcam/coordinator.conf", atomically: true, encoding: .utf8)
            for command in [["list"], ["start", "--countdown", "0", "--size", "320x240"]] {
                let typo = try Child("dualcam-coordinator", command + (command[0] == "start" ? rig.agentOptions : []),
                                     environment: ["XDG_CONFIG_HOME": config])
                #expect(typo.finish(seconds: 30) != 0, "\(command[0]) accepted a mistyped key")
                #expect(typo.err.all().contains(config + "/dualcam/coordinator.conf:2: unknown key `libary`, did you mean `library`?"),
                        "\(command[0]): \(typo.err.all())")
            }
        }
    }
}
