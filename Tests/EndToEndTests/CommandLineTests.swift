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
        if process.isRunning { process.terminate() }
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

        @Test func withoutAvahiDiscoverSaysWhatToDo() throws {
            let child = try Child("dualcam-coordinator", ["discover", "--seconds", "1"],
                                  environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/dualcam-test"])
            #expect(child.finish() != 0)
            let text = child.err.all()
            #expect(text.contains("avahi-daemon is not reachable") && text.contains("--agent HOST:PORT"), "\(text)")
        }
    }
}
