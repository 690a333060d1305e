import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// Finishes a session whose coordinator was killed or crashed: reads `session.json`,
/// rebuilds the outputs from the segments already held, reconnects to the agents (which
/// recorded on) and collects the rest with Resume (PROTOCOL.md §8.6), on a rig of its own.
public final class TakeResumer: Sendable {
    let sessionDirectory: String
    let identity: DeviceIdentity
    let logger: Logger
    let progress: @Sendable (String) -> Void
    let reconnectGraceSeconds: Double
    /// Agents (by name) the session is finished without.
    let without: [String]

    public init(sessionDirectory: String, identity: DeviceIdentity, logger: Logger,
                reconnectGraceSeconds: Double = 30, without: [String] = [], progress: @escaping @Sendable (String) -> Void) {
        self.without = without
        self.sessionDirectory = sessionDirectory
        self.identity = identity
        self.logger = logger
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

    public func run(attach: (@Sendable (Rig) async -> Void)? = nil) async throws -> TakeResult {
        let lock = try SessionLock(sessionDirectory: sessionDirectory, purpose: "resuming")
        try SessionFileName.refuseLinks(in: sessionDirectory, doing: "resuming")
        let record = try SessionRecord.load(from: sessionDirectory)
        guard !FileManager.default.fileExists(atPath: sessionDirectory + "/manifest.json") else {
            throw CoordinatorError("session \(record.sessionID) is complete already (\(sessionDirectory)/manifest.json)")
        }
        let names = record.agents.map(\.name)
        let leavingOut = try Set(without.map { name in
            guard let i = names.firstIndex(of: name) else {
                throw CoordinatorError("--without \(name): session \(record.sessionID) has no agent of that name; its agents are \(names.joined(separator: ", "))")
            }
            return i
        })
        var plan = try record.plan(outputDirectory: (sessionDirectory as NSString).deletingLastPathComponent)
        plan.reconnectGraceSeconds = reconnectGraceSeconds
        if record.bootID != SessionRecord.currentBootID() {
            progress("warning: this machine restarted since the session began; frames recorded from now on may be off the shared clock, so stop soon")
        }
        progress("resuming \(record.sessionID) (started \(record.startWallTime))")
        let rig = Rig(agents: plan.agents, identity: identity, logger: logger)
        let printer = attach == nil ? TakeRecorder.print(rig.notices(), to: progress) : nil
        defer { printer?.cancel() }
        let loop = Task { await rig.run() }
        if let attach { await attach(rig) }
        do {
            let result = try await rig.resume(sessionDirectory: sessionDirectory, record: record, plan: plan, lock: lock,
                                              leavingOut: leavingOut)
            rig.shutdown(sendShutdown: false)
            await loop.value
            return result
        } catch {
            rig.shutdown(sendShutdown: false)
            await loop.value
            throw error
        }
    }
}
