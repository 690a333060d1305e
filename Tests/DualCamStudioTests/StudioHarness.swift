import DualCamCoordinator
import DualCamNet
import Foundation
import Logging
import NIOConcurrencyHelpers
@testable import DualCamStudio

/// A studio on a rig with no agent, with the limits and library a test chooses, and the
/// log it wrote kept for the test to read.
struct StudioHarness {
    let studio: Studio
    let port: Int
    let rig: Rig
    let log: CapturedLog
    private let task: Task<Void, any Error>

    var base: String { "http://127.0.0.1:\(port)" }

    static func start(host: String = "127.0.0.1", limits: StudioLimits = StudioLimits(),
                      outputDirectory: String = NSTemporaryDirectory()) async throws -> StudioHarness {
        let identity = try DeviceIdentity.generate(commonName: "studio-test")
        let log = CapturedLog()
        let logger = Logger(label: "studio-test") { _ in log }
        let rig = Rig(agents: [], identity: identity, logger: Logger(label: "test"))
        Task { await rig.run() }
        let plan = TakePlan(agents: [], outputDirectory: outputDirectory, durationSeconds: nil)
        let studio = Studio(rig: rig, plan: plan, host: host, port: 0, limits: limits, logger: logger)
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await studio.run(onListening: { portSink.yield($0) }) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CocoaError(.fileNoSuchFile) }
        return StudioHarness(studio: studio, port: port, rig: rig, log: log, task: task)
    }

    func stop() {
        task.cancel()
        rig.shutdown(sendShutdown: false)
    }

    /// The `Cookie` header of a session got with the current one-time token.
    func sessionCookie() async throws -> String {
        guard let token = studio.access.token else { return "" }
        let answer = try await StudioServerTests().fetch(base + "/?token=\(token)")
        guard let header = answer.headers["Set-Cookie"] as? String else {
            throw StudioTestError("the token was refused: \(answer.status) \(answer.body)")
        }
        return String(header.split(separator: ";")[0])
    }
}

/// Whether `condition` holds within `seconds`, asked every 20 ms.
func eventually(within seconds: Double = 2, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

struct StudioTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Every line the studio logged at notice or above, for tests that count them.
struct CapturedLog: LogHandler {
    final class Lines: Sendable {
        fileprivate let lines = NIOLockedValueBox<[String]>([])
    }

    let kept = Lines()
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .notice

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        kept.lines.withLockedValue { $0.append("\(event.message)") }
    }

    var all: [String] { kept.lines.withLockedValue { $0 } }
}
