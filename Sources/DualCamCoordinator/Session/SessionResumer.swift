import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// Finishes a session whose coordinator was killed or crashed: reads `session.json`,
/// rebuilds the outputs from the segments already held, reconnects to the agents (which
/// recorded on) and collects the rest with Resume (PROTOCOL.md §8.6).
public final class SessionResumer {
    let sessionDirectory: String
    let identity: DeviceIdentity
    let logger: Logger
    let progress: @Sendable (String) -> Void
    let interactive: Bool
    let reconnectGraceSeconds: Double

    public init(sessionDirectory: String, identity: DeviceIdentity, logger: Logger, interactive: Bool,
                reconnectGraceSeconds: Double = 30, progress: @escaping @Sendable (String) -> Void) {
        self.sessionDirectory = sessionDirectory
        self.identity = identity
        self.logger = logger
        self.interactive = interactive
        self.reconnectGraceSeconds = reconnectGraceSeconds
        self.progress = progress
    }

    /// Session folders under `outputDirectory` that hold `session.json` but no manifest,
    /// and that no other coordinator is recording or resuming now. One whose
    /// `session.json` is damaged cannot be resumed: it is left out with a sentence to
    /// `warn`, or it would stop every later `start` in the folder.
    public static func unfinished(in outputDirectory: String, warn: (String) -> Void = { _ in }) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outputDirectory)) ?? []
        return names.sorted().map { outputDirectory + "/" + $0 }.filter {
            guard FileManager.default.fileExists(atPath: $0 + "/" + SessionRecord.fileName)
                && !FileManager.default.fileExists(atPath: $0 + "/manifest.json")
                && !SessionLock.isHeld(sessionDirectory: $0) else { return false }
            var status = stat()
            if lstat($0, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
                warn("warning: not finishing \($0): it is a symbolic link, and a session is only written in a real folder inside \(outputDirectory)")
                return false
            }
            do {
                _ = try SessionRecord.load(from: $0)
                return true
            } catch {
                warn("warning: not finishing the unfinished session in \($0), whose record is damaged: \(error)")
                return false
            }
        }
    }

    public func run() async throws -> SessionResult {
        let lock = try SessionLock(sessionDirectory: sessionDirectory, purpose: "resuming")
        defer { withExtendedLifetime(lock) {} }
        try SessionFileName.refuseLinks(in: sessionDirectory, doing: "resuming")
        let record = try SessionRecord.load(from: sessionDirectory)
        guard !FileManager.default.fileExists(atPath: sessionDirectory + "/manifest.json") else {
            throw CoordinatorError("session \(record.sessionID) is complete already (\(sessionDirectory)/manifest.json)")
        }
        var plan = try record.plan(outputDirectory: (sessionDirectory as NSString).deletingLastPathComponent)
        plan.reconnectGraceSeconds = reconnectGraceSeconds
        if record.bootID != SessionRecord.currentBootID() {
            progress("warning: this machine restarted since the session began; frames recorded from now on may be off the shared clock, so stop soon")
        }
        progress("resuming \(record.sessionID) (started \(record.startWallTime))")
        let roles = record.agents.map { Dualcam_V1_Role(name: $0.role) ?? .unspecified }
        let names = SessionNaming.cameraNames(roles: roles)
        var agents = plan.agents.map(AgentTracker.init(endpoint:))
        for i in agents.indices {
            agents[i].name = record.agents[i].name
            agents[i].role = roles[i]
            agents[i].cameraName = names[i]
            agents[i].receiver = try SegmentReceiver(sessionDirectory: sessionDirectory, camera: names[i])
        }
        let outputs = try SessionOutputs(plan: plan, sessionDirectory: sessionDirectory, sessionID: record.sessionID,
                                         cameraNames: names, wallStart: Date(timeIntervalSince1970: record.wallStartUnixSeconds),
                                         logger: logger)
        // What the killed coordinator held goes into the files again, in order.
        for (i, agent) in agents.enumerated() {
            guard let receiver = agent.receiver else { continue }
            for index in receiver.received.keys.sorted() {
                guard let path = receiver.received[index], let span = receiver.spans[index] else { continue }
                outputs.add(segment: path, index: index, camera: i, firstPresentationNanoseconds: span.first, durationNanoseconds: span.duration)
                agents[i].receivedUpToNanoseconds = max(agents[i].receivedUpToNanoseconds, span.first + span.duration)
            }
            progress("  \(agent.name): \(receiver.received.count) segments held already")
        }
        let events = AsyncStream.makeStream(of: SessionEvent.self)
        let collector = SessionCollector(plan: plan, identity: identity, logger: logger, progress: progress,
                                         sessionDirectory: sessionDirectory, record: record, agents: agents,
                                         outputs: outputs, events: events.continuation)
        for i in agents.indices {
            let link = try? await AgentLink.open(index: i, generation: 1, endpoint: agents[i].endpoint,
                                                 identity: identity, events: events.continuation)
            await collector.attach(i, link: link)
        }
        if interactive { LiveControls.shared.attach(events.continuation) }
        try await collector.run(events.stream)
        let result = try await SessionFinisher.finish(collector, progress: progress)
        return result
    }
}
