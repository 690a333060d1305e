import Foundation
import Testing

extension EndToEnd {
    /// The demo's agents never outlive it: interrupted (SIGINT) or killed outright (SIGKILL,
    /// where the coordinator can clean nothing up), its child processes end within seconds.
    @Suite struct DemoInterruptTests {
        @Test(arguments: [SIGINT, SIGKILL])
        func agentsEndWithTheDemo(signal: Int32) throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-int-\(getpid())-\(signal)"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: DemoRun.binDirectory + "/dualcam-coordinator")
            process.arguments = ["demo", "--duration", "60", "--out", out, "--state", out + "/state", "--size", "320x180"] + DemoRun.debugBuildClockGate
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

            // Wait until both agents are up and the session is recording.
            let stderr = LineCollector(err.fileHandleForReading)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline && !stderr.text.contains("recording ") { usleep(100_000) }
            try #require(stderr.text.contains("recording "), "demo never started recording: \(stderr.text)")
            let pids = stderr.text.split(separator: "\n").compactMap { line -> Int32? in
                guard let r = line.range(of: "(pid ") else { return nil }
                return Int32(line[r.upperBound...].prefix { $0.isNumber })
            }
            try #require(pids.count == 2, "expected two agent pids in: \(stderr.text)")
            for pid in pids { #expect(kill(pid, 0) == 0, "agent \(pid) should be running") }

            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let gone = Date().addingTimeInterval(5)
            while Date() < gone && pids.contains(where: { Self.alive($0) }) { usleep(100_000) }
            for pid in pids { #expect(!Self.alive(pid), "agent \(pid) outlived the demo after signal \(signal)") }
        }

        /// Alive and not a zombie (a zombie has exited; its parent just has not reaped it).
        static func alive(_ pid: Int32) -> Bool {
            guard kill(pid, 0) == 0 else { return false }
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let state = stat[stat.index(close, offsetBy: 2)]
            return state != "Z" && state != "X"
        }
    }
}
