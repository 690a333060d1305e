import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// One take on a rig of its own, for `start` and `demo`: connects to the plan's agents,
/// records, and ends the rig. `attach` hands the running rig to a screen (the terminal)
/// before the take starts; without one, the rig's notices go to `progress`. `confirm`
/// sees the rig once every agent answered and may refuse the take by throwing (`start`
/// asks about the nodes it would leave out).
public final class TakeRecorder: Sendable {
    let plan: TakePlan
    let identity: DeviceIdentity
    let logger: Logger
    let progress: @Sendable (String) -> Void

    public init(plan: TakePlan, identity: DeviceIdentity, logger: Logger,
                progress: @escaping @Sendable (String) -> Void = { _ in }) {
        self.plan = plan
        self.identity = identity
        self.logger = logger
        self.progress = progress
    }

    public func run(confirm: (@Sendable (RigSnapshot) async throws -> Void)? = nil,
                    attach: (@Sendable (Rig) async -> Void)? = nil) async throws -> TakeResult {
        let rig = Rig(agents: plan.agents, identity: identity, logger: logger)
        let printer = attach == nil ? Self.print(rig.notices(), to: progress) : nil
        let loop = Task { await rig.run() }
        defer { printer?.cancel() }
        do {
            try await rig.connect()
            if let confirm { try await confirm(await rig.snapshot()) }
            if let attach { await attach(rig) }
            let result = try await rig.record(plan)
            // The agents of a demo exit on this; a rig's agents (services) ignore it.
            rig.shutdown(sendShutdown: true)
            await loop.value
            return result
        } catch {
            rig.shutdown(sendShutdown: true)
            await loop.value
            throw error
        }
    }

    static func print(_ notices: AsyncStream<String>, to progress: @escaping @Sendable (String) -> Void) -> Task<Void, Never> {
        Task {
            for await line in notices { progress(line) }
        }
    }

    static func hello() -> Dualcam_V1_Hello {
        var hello = Dualcam_V1_Hello()
        hello.version = WireProtocol.version
        hello.software = Release.software("dualcam-coordinator")
        hello.nodeName = nodeName()
        return hello
    }

    /// This machine's name as the protocol's safe name (a host name may hold other bytes).
    static func nodeName() -> String {
        let raw = ProcessInfo.processInfo.hostName
        var name = String(raw.unicodeScalars.map { scalar -> Character in
            let ok = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
            return ok ? Character(scalar) : "-"
        }.prefix(WireIdentifier.maxBytes))
        while name.hasPrefix(".") { name.removeFirst() }
        return name.isEmpty ? "coordinator" : name
    }
}
