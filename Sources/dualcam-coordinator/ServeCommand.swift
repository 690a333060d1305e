import ArgumentParser
import CLinux
import DualCamCoordinator
import DualCamNet
import Foundation

/// `serve`: the rig stays up and records a take each time it is told to, without
/// reconnecting between takes.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep the rig up and record a take each time it is told to (Enter starts and stops).",
        discussion: """
            On a terminal: Enter starts a take, Enter (or q) stops it; l, s and p change the layout while \\
            recording. From a pipe, one command a line: start, stop, l, s, p, layout SPEC, filter NAME [0-100], mix SPEC, quit; the end \\
            of input quits once no take is under way. After each take the files are printed, with the \\
            coordinator's open files and memory.
            """,
        aliases: ["studio"])

    @OptionGroup var agents: AgentChoice
    @Option(help: "Seconds each take records (default: until stopped).") var duration: Double?
    @Option(help: "Output folder, one sub-folder per session (default: the library, ~/Videos/DualCam or `library =` in coordinator.conf).")
    var out: String?
    @OptionGroup var take: TakeOptions
    @OptionGroup var state: StateOption
    @OptionGroup var studio: StudioOptions
    @Flag(help: "No studio (browser screen): the terminal only.") var noStudio = false
    @Flag(help: "A `start` from a pipe records even when a node of the rig is missing or NOT READY (at a terminal, Enter asks and a second Enter confirms).")
    var allowMissing = false

    func run() async throws {
        Interrupts.install()
        let rigLock = try RigLock(stateDirectory: state.directory, purpose: "serve")
        defer { withExtendedLifetime(rigLock) {} }
        let logger = CommandSupport.logger()
        let progress: @Sendable (String) -> Void = { line in Console.error(line) }
        let outputDirectory = try CommandSupport.outputFolder(out)
        let identity = try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator")
        let selection = try await agents.endpoints(identity: identity, stateDirectory: state.directory, progress: progress)
        let endpoints = selection.endpoints
        var plan = try take.plan(agents: endpoints, outputDirectory: outputDirectory, duration: duration, progress: progress)
        plan.absentAgents = selection.absent
        if agents.rolesByName { plan.roles = [.host, .guest].prefix(plan.agents.count).map { $0 } }
        _ = try studio.address()
        let rig = Rig(agents: endpoints, identity: identity, logger: logger)
        let loop = Task { await rig.run() }
        let reports = Task { await Self.reportTakes(rig.snapshots()) }
        try await rig.connect()
        progress("rig up with \(endpoints.count) agent\(endpoints.count == 1 ? "" : "s"); Enter (or `start`) records a take, `quit` ends")
        // Said once the rig is up (its notices reach this screen from now on, as a camera
        // goes or comes back): a take would record without these nodes.
        for agent in await rig.snapshot().agents {
            if let reason = agent.sourceProblem { progress("\(agent.name) [\(agent.role)] is NOT READY: \(reason)") }
        }
        let studioTask = noStudio ? nil : Task { [studio] in
            do {
                try await studio.serve(rig: rig, plan: plan, logger: logger)
            } catch {
                CommandSupport.say("studio: \(error); the terminal still drives the rig")
            }
        }
        TerminalClient(rig: rig, serving: true, startPlan: plan, allowMissing: allowMissing).attach(keys: true, takesInterrupts: true, onQuit: {
            rig.shutdown(sendShutdown: false)
        })
        await loop.value
        studioTask?.cancel()
        reports.cancel()
        KeyReader.restoreTerminal()
    }

    /// Prints each take's files when it ends, and what the coordinator holds open: a rig
    /// that runs for a day must not grow from take to take.
    static func reportTakes(_ snapshots: AsyncStream<RigSnapshot>) async {
        var reported: String?
        for await snapshot in snapshots {
            guard let take = snapshot.take, take.isOver, let id = take.sessionID ?? take.reason, id != reported else { continue }
            reported = id
            if let files = take.files {
                CommandSupport.report(files)
            } else if take.liveOnly && take.phase == .done {
                CommandSupport.say("live ended: nothing kept (live without recording)")
            } else {
                CommandSupport.say("take \(take.phase.words): \(take.reason ?? "")")
            }
            // Once the take's files, decoders and encoder are let go (they close on their own
            // queues as the take ends), what they freed goes back to the system: a rig left
            // up all day should hold what it keeps between takes, not the last take's peak.
            // The figure is read after that.
            try? await Task.sleep(nanoseconds: 1_000_000_000)
            _ = dc_trim_heap()
            CommandSupport.say("coordinator: \(ProcessFigures.openFiles()) open files, \(ProcessFigures.residentKilobytes()) kB resident")
        }
    }
}

/// The process's own figures from /proc.
enum ProcessFigures {
    static func openFiles() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
}
