import DualCamNet
import Foundation

/// Agent processes the demo starts on this machine. They never outlive the demo: they
/// are stopped on every exit path here, on SIGINT/SIGTERM by `ChildReaper`, and each
/// agent also exits by itself when its parent is gone (`--exit-with-parent`).
final class ChildAgent: @unchecked Sendable {
    // Invariant: `process` is set once in init and only read afterwards.
    let role: String
    let process: Process
    let logPath: String
    let endpoint: AgentEndpoint

    init(executable: String, role: String, arguments: [String], logPath: String) throws {
        self.role = role
        self.logPath = logPath
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
              let log = FileHandle(forWritingAtPath: logPath) else {
            throw CoordinatorError("cannot create the agent log \(logPath)")
        }
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        ChildReaper.shared.track(process.processIdentifier)
        do {
            endpoint = try ChildAgent.readListeningLine(stdout.fileHandleForReading, process: process, logPath: logPath)
        } catch {
            process.terminate()
            throw error
        }
    }

    /// Reads "LISTENING port=N id=ID ..." from the agent's stdout, waiting at most 30 s.
    private static func readListeningLine(_ handle: FileHandle, process: Process, logPath: String) throws -> AgentEndpoint {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(30)
        let fd = handle.fileDescriptor
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 200)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw CoordinatorError("a demo agent exited before listening:\n\(log.suffix(2000))")
            }
            buffer += chunk[0..<n]
            let text = String(decoding: buffer, as: UTF8.self)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("LISTENING ") }) else { continue }
            var fields: [String: String] = [:]
            for part in line.split(separator: " ").dropFirst() {
                let kv = part.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
            }
            guard let port = fields["port"].flatMap(Int.init), let id = fields["id"].flatMap(DeviceID.init(parsing:)) else {
                throw CoordinatorError("unreadable line from a demo agent: \(line)")
            }
            return AgentEndpoint(host: "127.0.0.1", port: port, deviceID: id)
        }
        throw CoordinatorError("a demo agent did not start listening within 30 s (log: \(logPath))")
    }

    /// Asks politely, then insists.
    func stop(grace: TimeInterval = 5) {
        guard process.isRunning else { return }
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            usleep(500_000)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        ChildReaper.shared.untrack(process.processIdentifier)
    }
}

/// Kills tracked children when the coordinator is interrupted.
final class ChildReaper: @unchecked Sendable {
    // Invariant: `pids`, `scratch` and `sources` are touched only under `lock`.
    static let shared = ChildReaper()
    private let lock = NSLock()
    private var pids = Set<Int32>()
    private var scratch = Set<String>()
    private var sources: [DispatchSourceSignal] = []

    /// A folder of the children's (their identities and spools) removed on interruption:
    /// a demo ended with Ctrl-C must not leave megabytes in /tmp each time.
    func trackScratch(_ path: String) { lock.withLock { _ = scratch.insert(path) } }
    func untrackScratch(_ path: String) { lock.withLock { _ = scratch.remove(path) } }

    func track(_ pid: Int32) { lock.withLock { _ = pids.insert(pid) } }
    func untrack(_ pid: Int32) { lock.withLock { _ = pids.remove(pid) } }

    func killAll() {
        for pid in lock.withLock({ pids }) { kill(pid, SIGKILL) }
    }

    /// Installs SIGINT/SIGTERM handlers that kill every tracked child and exit.
    func installSignalHandlers() {
        lock.withLock {
            guard sources.isEmpty else { return }
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler { [self] in
                    FileHandle.standardError.write(Data("\ndualcam-coordinator: interrupted; stopping the agents\n".utf8))
                    killAll()
                    for path in lock.withLock({ scratch }) { try? FileManager.default.removeItem(atPath: path) }
                    exit(130)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
