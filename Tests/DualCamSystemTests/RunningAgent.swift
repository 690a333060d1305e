import DualCamAgent
import DualCamNet
import Foundation
import Logging
import NIOConcurrencyHelpers

/// A real `AgentServer` on loopback in this process, with its own state folder and a log
/// the test can read. Cancelled (listener closed) by `stop()`.
final class RunningAgent: Sendable {
    let identity: DeviceIdentity
    let stateDirectory: String
    let port: Int
    let log: LogLines
    private let task: Task<Void, Error>

    static func start(name: String = "test-agent", trusting: Set<DeviceID> = [],
                      listenHost: String = "127.0.0.1", defaults: RecordingSettings = RecordingSettings()) async throws -> RunningAgent {
        let state = NSTemporaryDirectory() + "dualcam-system-\(UUID().uuidString)"
        let identity = try DeviceIdentity.loadOrCreate(in: state, commonName: "dualcam-agent")
        var options = AgentOptions(
            name: name, role: .guest, listenHost: listenHost, port: 0, stateDirectory: state,
            spoolDirectory: state + "/spool", trusted: trusting, defaults: defaults,
            simulatedError: .none, allowRemoteShutdown: false)
        options.announce = false
        options.firstPairingWindowSeconds = 0
        let log = LogLines()
        var logger = Logger(label: "agent") { _ in log }
        logger.logLevel = .info
        let server = AgentServer(options: options, identity: identity, logger: logger)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run { portContinuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TransportError("agent did not start") }
        return RunningAgent(identity: identity, stateDirectory: state, port: port, log: log, task: task)
    }

    private init(identity: DeviceIdentity, stateDirectory: String, port: Int, log: LogLines, task: Task<Void, Error>) {
        self.identity = identity
        self.stateDirectory = stateDirectory
        self.port = port
        self.log = log
        self.task = task
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        try? FileManager.default.removeItem(atPath: stateDirectory)
    }
}

/// Collects log messages; a `LogHandler` for tests.
final class LogLines: LogHandler, Sendable {
    private let lines = NIOLockedValueBox<[String]>([])
    var all: [String] { lines.withLockedValue { $0 } }

    func log(event: LogEvent) {
        lines.withLockedValue { $0.append(event.message.description) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    var logLevel: Logger.Level {
        get { .info }
        set {}
    }

    /// Waits up to `seconds` for a line containing all of `words`.
    func waitFor(_ words: [String], seconds: Double = 5) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if all.contains(where: { line in words.allSatisfy(line.contains) }) { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return false
    }
}
