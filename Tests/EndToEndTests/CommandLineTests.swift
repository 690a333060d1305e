import Foundation
import Testing

/// A program run as a child, with its output collected as it comes: a built executable
/// by name, or any program by path (the multi-host rig's script, through bash).
final class Child: @unchecked Sendable {
    // Invariant: set up in init and never changed; the collectors lock themselves.
    let process = Process()
    let out: LineCollector
    let err: LineCollector
    let input = Pipe()

    /// `executable` from the build folder, with a pipe on stdin for `type`.
    convenience init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        try self.init(path: DemoRun.binDirectory + "/" + executable, arguments, environment: environment)
    }

    /// `typed`: stdin is a pipe `type` writes to; otherwise /dev/null, so a program that
    /// reads its stdin sees its end at once rather than waiting on a pipe no one writes.
    init(path: String, _ arguments: [String], environment: [String: String] = [:], typed: Bool = true) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = typed ? input : FileHandle.nullDevice
        try process.run()
        out = LineCollector(outPipe.fileHandleForReading)
        err = LineCollector(errPipe.fileHandleForReading)
    }

    /// Waits until stdout holds a line with `text`; returns that line.
    func waitForLine(containing text: String, seconds: Double = 20) -> String? {
        wait(for: text, in: out, seconds: seconds)
    }

    /// Waits until stderr holds a line with `text`; returns that line.
    func waitForErr(containing text: String, seconds: Double = 20) -> String? {
        wait(for: text, in: err, seconds: seconds)
    }

    /// A child that has exited writes no more: its whole output is read once and the
    /// wait ends there, rather than at the deadline.
    private func wait(for text: String, in collector: LineCollector, seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let line = collector.text.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if !process.isRunning {
                return collector.all().split(separator: "\n").first(where: { $0.contains(text) }).map(String.init)
            }
            usleep(50_000)
        }
        return nil
    }

    /// The last lines of stderr, for assertion messages.
    func errTail(_ lines: Int = 40) -> String {
        err.text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    func type(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    func finish(seconds: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            // SIGTERM asks the coordinator to stop its take cleanly, which a wedged one
            // never finishes: SIGKILL after a grace, so a test fails instead of hanging.
            process.terminate()
            let grace = Date().addingTimeInterval(10)
            while process.isRunning && Date() < grace { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGINT, then SIGTERM if the child is still there after `seconds`.
    func stop(seconds: Double = 5) {
        if process.isRunning { process.interrupt() }
        _ = finish(seconds: seconds)
    }
}

extension EndToEnd {
    /// The commands a person types, run as processes.
    @Suite struct CommandLineTests {
        @Test func pairingFromTheCommandLine() throws {
            let root = NSTemporaryDirectory() + "dualcam-cli-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: root) }
            let agent = try Child("dualcam-agent", ["run", "--source", "synthetic", "--state", root + "/agent", "--port", "0", "--no-mdns",
                                                    "--name", "cli-guest", "--role", "guest", "--first-pairing-window", "0"])
            defer { agent.stop() }
            let listening = try #require(agent.waitForLine(containing: "LISTENING"), "agent: \(agent.err.text)")
            let port = try #require(listening.split(separator: " ").first { $0.hasPrefix("port=") }?.dropFirst(5))

            // Before pairing the coordinator is turned away, with advice.
            let early = try Child("dualcam-coordinator", ["pair", "--state", root + "/coordinator", "--agent", "127.0.0.1:\(port)"])
            #expect(early.finish() != 0)
            #expect(early.err.all().contains("dualcam-agent pair"))

            let window = try Child("dualcam-agent", ["pair", "--state", root + "/agent", "--seconds", "60"])
            defer { window.stop() }
            #expect(window.waitForLine(containing: "Pairing window open") != nil, "pair: \(window.err.text)")
            let coordinator = try Child("dualcam-coordinator", ["pair", "--state", root + "/coordinator", "--name", "cli-laptop",
                                                                "--agent", "127.0.0.1:\(port)"])
            let codeLine = try #require(window.waitForLine(containing: "Code:"), "coordinator: \(coordinator.err.text)")
            let code = String(codeLine.dropFirst("Code: ".count).prefix(7))
            coordinator.type(code)
            #expect(coordinator.finish() == 0, "coordinator: \(coordinator.err.all())")
            #expect(coordinator.out.all().contains("Paired with cli-guest [guest]"))
            #expect(window.finish() == 0)
            #expect(window.out.all().contains("Paired with coordinator \"cli-laptop\""))

            let listed = try Child("dualcam-agent", ["paired", "--state", root + "/agent"])
            #expect(listed.finish() == 0)
            #expect(listed.out.all().contains("cli-laptop"))
            let revoked = try Child("dualcam-agent", ["unpair", "--state", root + "/agent", "cli-laptop"])
            #expect(revoked.finish() == 0)
            // The running agent reads its trust list at each connection: revoked at once.
            let after = try Child("dualcam-coordinator", ["start", "--state", root + "/coordinator", "--agent", "127.0.0.1:\(port)",
                                                          "--duration", "1"])
            #expect(after.finish() != 0)
            #expect(after.err.all().contains("not paired"), "\(after.err.all())")
        }

        /// One release for both, with the protocol they speak: "dualcam-agent 0.4.0 (protocol 1.4)".
        @Test func bothProgramsSayTheirVersion() throws {
            var versions: [String] = []
            for program in ["dualcam-agent", "dualcam-coordinator"] {
                let child = try Child(program, ["--version"])
                #expect(child.finish() == 0)
                let line = child.out.all().trimmingCharacters(in: .whitespacesAndNewlines)
                let pattern = #/^(dualcam-[a-z]+) ([0-9]+\.[0-9]+\.[0-9]+ \(protocol [0-9]+\.[0-9]+\))$/#
                let match = try #require(line.wholeMatch(of: pattern), "\(program) --version: \(line)")
                #expect(match.1 == program)
                versions.append(String(match.2))
            }
            #expect(versions.count == 2 && versions[0] == versions[1], "\(versions)")
        }

        @Test func withoutAvahiDiscoverSaysWhatToDo() throws {
            let child = try Child("dualcam-coordinator", ["discover", "--seconds", "1"],
                                  environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/dualcam-test"])
            #expect(child.finish() != 0)
            let text = child.err.all()
            #expect(text.contains("avahi-daemon is not reachable") && text.contains("--agent HOST:PORT"), "\(text)")
        }

        /// Numbers a program cannot use are refused at once as a usage error (exit 64),
        /// naming the option and the range, before any camera, port, agent or folder is
        /// touched; each of these trapped, hung or listened on the wrong port before.
        @Test func outOfRangeNumbersAreRefusedWithTheirRange() throws {
            let root = NSTemporaryDirectory() + "dualcam-ranges-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: root) }
            let state = ["--state", root + "/state"]
            let cases: [(String, [String], String)] = [
                ("dualcam-agent", ["run", "--source", "synthetic", "--first-pairing-window", "99999999999"] + state, "0 to 86400"),
                ("dualcam-agent", ["run", "--source", "synthetic", "--disk-reserve-mb", "1e20"] + state, "0 to 1000000 MB"),
                ("dualcam-agent", ["run", "--source", "synthetic", "--input-latency-ms", "1e300"] + state, "0 to 10000 ms"),
                ("dualcam-agent", ["run", "--source", "synthetic", "--port", "70000"] + state, "0 to 65535"),
                ("dualcam-agent", ["run", "--source", "synthetic", "--gain", "-60"] + state, "-12 to 12 dB"),
                ("dualcam-agent", ["run", "--source", "synthetic", "--preset-headroom", "0.5"] + state, "1 to 10 times real time"),
                ("dualcam-agent", ["record", "--source", "synthetic", "--duration", "inf", "--out", root + "/rec"], "more than 0"),
                ("dualcam-agent", ["record", "--source", "synthetic", "--bitrate", "1e300M", "--out", root + "/rec"], "--bitrate"),
                ("dualcam-coordinator", ["start", "--bitrate", "1e300M", "--out", root + "/out"] + state, "--bitrate"),
                ("dualcam-coordinator", ["demo", "--duration", "inf", "--out", root + "/demo"] + state, "more than 0"),
                ("dualcam-coordinator", ["start", "--clock-sync-timeout", "inf", "--out", root + "/out"] + state, "--clock-sync-timeout inf"),
                ("dualcam-coordinator", ["start", "--clock-threshold-us", "9223372036854775807", "--out", root + "/out"] + state, "1 to 1000000 µs"),
                ("dualcam-coordinator", ["start", "--countdown", "-1", "--out", root + "/out"] + state, "--countdown -1 is out of range"),
                ("dualcam-coordinator", ["start", "--reconnect-grace", "nan", "--out", root + "/out"] + state, "--reconnect-grace nan is not a number"),
                ("dualcam-coordinator", ["resume", "--reconnect-grace", "inf", "--out", root + "/out"] + state, "0 to 3600 seconds"),
                ("dualcam-coordinator", ["start", "--agent", "127.0.0.1:70000", "--out", root + "/out"] + state, "1 to 65535"),
                ("dualcam-coordinator", ["start", "--fps", "1000", "--out", root + "/out"] + state, "1 to 240 frames a second"),
                ("dualcam-coordinator", ["demo", "--fps", "1000", "--out", root + "/demo"] + state, "1 to 240 frames a second"),
                ("dualcam-agent", ["run", "--source", "synthetic", "--fps", "1000"] + state, "1 to 240 frames a second"),
                // Words, too, are checked before agents are looked for (they were after 5 s).
                ("dualcam-coordinator", ["start", "--preset", "maxquality", "--out", root + "/out"] + state, "unknown preset maxquality"),
                ("dualcam-coordinator", ["start", "--encoder", "x999", "--out", root + "/out"] + state, "x999"),
                ("dualcam-coordinator", ["start", "--layout", "pipp", "--out", root + "/out"] + state, "unknown layout 'pipp'"),
                ("dualcam-coordinator", ["start", "--size", "0x0", "--out", root + "/out"] + state, "--size must look like 1280x720"),
            ]
            for (program, arguments, range) in cases {
                let child = try Child(program, arguments)
                let status = child.finish(seconds: 20)
                let err = child.err.all()
                #expect(status == 64, "\(program) \(arguments.joined(separator: " ")): exit \(status), \(err)")
                #expect(err.contains(range), "\(program) \(arguments.joined(separator: " ")): \(err)")
            }
            // Nothing was made on the way: no session folder from the demo, no recording.
            for folder in ["/demo", "/rec", "/out"] {
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: root + folder)) ?? []).isEmpty, "\(folder)")
            }
        }

        /// Errors a user can act on (issue 21 item 12): each names the file, port or agent
        /// and says what to do, instead of a Cocoa error code or a bare errno.
        @Test func errorsNameWhatFailedAndWhatToDo() throws {
            let root = NSTemporaryDirectory() + "dualcam-errors-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: root) }
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let state = ["--state", root + "/state"]
            let file = root + "/a-file"
            _ = FileManager.default.createFile(atPath: file, contents: Data())
            let closed = Self.closedPort()
            let busy = try LoopbackListener.open()
            defer { close(busy.descriptor) }
            let cases: [(String, [String], String)] = [
                ("dualcam-coordinator", ["start", "--out", file + "/sessions", "--agent", "127.0.0.1:\(closed)"] + state,
                 "\(file) is a file, not a folder; choose another folder with --out"),
                ("dualcam-coordinator", ["start", "--out", root + "/out", "--agent", "127.0.0.1:\(closed)"] + state,
                 "nothing listens at 127.0.0.1:\(closed) (connection refused): is dualcam-agent running there"),
                ("dualcam-agent", ["run", "--source", "synthetic", "--no-mdns", "--listen", "127.0.0.1", "--port", "\(busy.port)"] + state,
                 "port \(busy.port) (127.0.0.1:\(busy.port)) is in use by another program: stop it, or choose another port with --port"),
                ("dualcam-coordinator", ["demo", "--live-only", "--out", root + "/out"] + state,
                 "--live-only streams without recording, so it needs somewhere to stream: --stream URL"),
                ("dualcam-coordinator", ["serve", "--live-only", "--stream", "rtmp://127.0.0.1:9/live/k"] + state,
                 "--live-only is for start and demo; in serve, Go live in the studio (or type `live on`)"),
            ]
            for (program, arguments, words) in cases {
                let child = try Child(program, arguments)
                let status = child.finish(seconds: 30)
                let err = child.err.all()
                #expect(status != 0, "\(program) \(arguments.joined(separator: " ")): exit 0")
                #expect(err.contains(words), "\(program) \(arguments.joined(separator: " ")): \(err)")
                #expect(!err.contains("errno") && !err.contains("NSCocoaErrorDomain"), "\(err)")
            }

            // The studio's port: the rig stays up on the terminal, and says which port.
            let rig = try RecoveryRig()
            let serve = try rig.coordinator(["serve", "--listen", "127.0.0.1:\(busy.port)"] + rig.agentOptions + ["--state", rig.root + "/coordinator"])
            let line = serve.waitForLine(containing: "studio:", seconds: 30)
            serve.type("quit")
            _ = serve.finish(seconds: 20)
            #expect(line?.contains("port \(busy.port) (127.0.0.1:\(busy.port)) is in use by another program") == true,
                    "\(line ?? serve.out.all() + serve.err.all())")

            // Pairing an agent that trusts this coordinator already: said so, nothing asked.
            let pair = try Child("dualcam-coordinator", ["pair", "--state", rig.root + "/coordinator", "--agent", "127.0.0.1:\(rig.ports[0])"])
            #expect(pair.finish(seconds: 30) == 0, "\(pair.err.all())")
            #expect(pair.out.all().contains("rec-host already trusts this coordinator: nothing to pair"), "\(pair.out.all())")
        }

        /// Sessions go to the library (~/Videos/DualCam here) whatever the current folder,
        /// and every library command finds them there without --out.
        @Test func sessionsLiveInTheLibraryWhateverTheCurrentFolder() throws {
            let home = NSTemporaryDirectory() + "dualcam-library-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: home) }
            let env = ["HOME": home, "XDG_CONFIG_HOME": home + "/.config"]
            let demo = try Child("dualcam-coordinator", ["demo", "--duration", "1", "--size", "320x180", "--no-sound"] + DemoRun.debugBuildClockGate,
                                 environment: env)
            #expect(demo.finish(seconds: 120) == 0, "\(demo.err.all())")
            let library = home + "/Videos/DualCam"
            let sessions = (try? FileManager.default.contentsOfDirectory(atPath: library)) ?? []
            #expect(sessions.count == 1, "\(sessions)")
            #expect(demo.out.all().contains(library + "/"), "the files are printed with their place: \(demo.out.all())")
            let list = try Child("dualcam-coordinator", ["list"], environment: env)
            #expect(list.finish() == 0)
            #expect(sessions.allSatisfy { list.out.all().contains($0) }, "\(list.out.all())")
        }

        /// A port on loopback that nothing listens on (bound, then closed).
        static func closedPort() -> Int {
            let (descriptor, port) = (try? LoopbackListener.open()) ?? (-1, 9)
            close(descriptor)
            return port
        }

        /// The service's config file read as a person wrote it (Windows line ends, a
        /// negative gain, `genlock = false`, a `#` in a quoted name), and its mistakes
        /// reported with the file and the line.
        @Test func theAgentsConfigFileIsReadAsWritten() throws {
            let root = NSTemporaryDirectory() + "dualcam-conf-\(getpid())"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let good = root + "/agent.conf"
            try ("role = guest\r\nname = \"Studio #2\"  # the second room\r\ngain = -6\r\ngenlock = false\r\n"
                + "source = synthetic\r\nport = 0\r\nmdns = false\r\nfirst-pairing-window = 0\r\n")
                .write(toFile: good, atomically: true, encoding: .utf8)
            let agent = try Child("dualcam-agent", ["run", "--config", good, "--state", root + "/state"])
            defer { agent.stop() }
            let listening = agent.waitForLine(containing: "LISTENING")
            #expect(listening?.contains("role=guest") == true, "\(agent.err.all())")
            agent.stop()

            let cases: [(String, String)] = [
                ("role = host\nport = 4294967296\n", "--port 4294967296 is out of range: give 0 to 65535"),
                ("role = host\n\nprot = 7420\n", "bad.conf:3: unknown key `prot`"),
                ("mute = maybe\n", "bad.conf:1: mute is a flag"),
            ]
            for (text, expected) in cases {
                try text.write(toFile: root + "/bad.conf", atomically: true, encoding: .utf8)
                let child = try Child("dualcam-agent", ["run", "--config", root + "/bad.conf", "--state", root + "/state"])
                let status = child.finish(seconds: 20)
                #expect(status != 0 && child.err.all().contains(expected), "\(text): exit \(status), \(child.err.all())")
            }
        }

        /// A damaged `session.json` in the output folder used to stop every `start` there
        /// (it tried to finish that session first and failed); now it is passed over with
        /// a warning, and the start goes on to look for its agents.
        @Test func aDamagedUnfinishedSessionDoesNotStopStart() throws {
            let root = NSTemporaryDirectory() + "dualcam-damaged-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: root) }
            let session = root + "/out/20261124_120000"
            try FileManager.default.createDirectory(atPath: session + "/segments", withIntermediateDirectories: true)
            try Data("{\"sessionID\": \"2026".utf8).write(to: URL(fileURLWithPath: session + "/session.json"))
            let start = try Child("dualcam-coordinator", ["start", "--out", root + "/out", "--state", root + "/state",
                                                          "--discover-seconds", "0.5", "--duration", "1"])
            _ = start.finish(seconds: 30)
            let err = start.err.all()
            #expect(err.contains("warning: not finishing the unfinished session in \(session)"), "\(err)")
            #expect(!err.contains("Error: \(session)/session.json"), "\(err)")
            let list = try Child("dualcam-coordinator", ["list", "--out", root + "/out"])
            #expect(list.finish() == 0)
            #expect(list.out.all().contains("damaged"), "\(list.out.all())")
        }
    }
}
