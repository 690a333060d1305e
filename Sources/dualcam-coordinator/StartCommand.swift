import ArgumentParser
import DualCamCoordinator
import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation

/// How a take records: the options `start` and `serve` share.
struct TakeOptions: ParsableArguments {
    @Option(help: "Quality preset: balanced (1080p30 H.264), high-efficiency (1080p30 H.265), maximum-quality (4K60 H.265), social-media (1080p30 H.264 at 8 Mbit/s).")
    var preset = "balanced"
    @Option(help: "Picture size WxH (overrides the preset).") var size: String?
    @Option(help: "Frame rate (overrides the preset).") var fps: String?
    @Option(help: "Encoder on the agents: libx264, libx265, h264_v4l2m2m (overrides the preset).") var encoder: String?
    @Option(parsing: .unconditional, help: "Constant quality, 0-51 (overrides the preset).") var crf: Int?
    @Option(help: "Bit rate, e.g. 8M or 2500k (instead of constant quality).") var bitrate: String?
    @Option(parsing: .unconditional, help: "Countdown before the start: 0 (off), 3, 10 or any number of seconds.") var countdown = 3
    @Option(parsing: .unconditional, help: "Seconds to wait after the stop for an agent whose connection was lost.") var reconnectGrace = 30.0
    @OptionGroup var layout: LayoutOptions
    @OptionGroup var clockSync: ClockSyncOptions

    func validate() throws {
        try CoordinatorRanges.checkTake(countdown: countdown, reconnectGrace: reconnectGrace, crf: crf, size: size, bitrate: bitrate)
        if let fps, let problem = FrameRate.optionProblem(fps) { throw ValidationError(problem) }
    }

    /// The plan for `agents`, every option checked before anything slow happens.
    func plan(agents: [AgentEndpoint], outputDirectory: String, duration: Double?) throws -> SessionPlan {
        var plan = SessionPlan(agents: agents, outputDirectory: outputDirectory, durationSeconds: duration)
        do { try QualityPreset.parse(preset).apply(to: &plan) } catch { throw ValidationError("\(error)") }
        (plan.fitsSizeToCameras, plan.fitsRateToCameras) = (size == nil, fps == nil)
        if let size { (plan.width, plan.height) = try CommandSupport.parseSize(size) }
        if let fps {
            if let problem = FrameRate.optionProblem(fps) { throw ValidationError(problem) }
            guard let rate = FrameRate(parsing: fps) else { throw ValidationError("--fps \(fps) is not a rate") }
            plan.rate = rate
        }
        if let encoder {
            if let problem = VideoEncoderSettings.problem(encoder: encoder, preset: nil) { throw ValidationError(problem) }
            plan.encoder = encoder
        }
        if let crf {
            guard (0...51).contains(crf) else { throw ValidationError("--crf must be 0 to 51") }
            (plan.crf, plan.bitrate) = (crf, nil)
        }
        if let bitrate {
            guard let bits = VideoEncoderSettings.parseBitrate(bitrate), bits > 0 else { throw ValidationError("--bitrate must look like 8M or 2500k") }
            (plan.crf, plan.bitrate) = (0, bits)
        }
        guard countdown >= 0 else { throw ValidationError("--countdown must be 0 or more seconds") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        plan.countdownSeconds = countdown
        plan.reconnectGraceSeconds = reconnectGrace
        plan.layout = try layout.spec(remembered: CoordinatorPreferences.layout())
        plan.filter = try layout.look()
        plan.mix = try layout.mixSpec()
        plan.clockThresholdNanoseconds = clockSync.thresholdNanoseconds
        plan.clockSyncTimeoutNanoseconds = clockSync.timeoutNanoseconds
        return plan
    }
}

/// Which agents a command records: given by address or name, or every paired one found.
struct AgentChoice: ParsableArguments {
    @Option(help: "An agent as HOST:PORT, HOST:PORT,DEVICE-ID or DEVICE-ID (repeatable; in camera order). Default: every paired agent found over mDNS, host first.")
    var agent: [String] = []
    @Option(help: "The agent (by name) that films the host.") var host: String?
    @Option(help: "The agent (by name) that films the guest.") var guest: String?
    @Option(parsing: .unconditional, help: "Seconds to look for agents over mDNS.") var discoverSeconds = 5.0

    func endpoints(identity: DeviceIdentity, stateDirectory: String,
                   progress: @escaping @Sendable (String) -> Void) async throws -> [AgentEndpoint] {
        let paired = PairedDevices(stateDirectory: stateDirectory)
        if host != nil || guest != nil {
            guard agent.isEmpty else { throw ValidationError("give agents either by --host/--guest name or by --agent, not both") }
            guard let host, let guest else { throw ValidationError("--host and --guest go together") }
            return try await AgentSelection.byName(host: host, guest: guest, paired: paired, seconds: discoverSeconds, progress: progress)
        }
        let specs = try agent.map { text in
            do { return try AgentSelection.Spec(parsing: text) } catch { throw ValidationError("\(error)") }
        }
        return try await AgentSelection.resolve(specs, paired: paired, identity: identity,
                                                discoverSeconds: discoverSeconds, progress: progress)
    }

    var rolesByName: Bool { host != nil || guest != nil }

    func validate() throws {
        try CoordinatorRanges.discoverSeconds.validate(discoverSeconds)
    }
}

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a session from running agents: every paired agent found over mDNS, or those named.",
        discussion: """
            While recording: Enter (or q) stops, l changes the layout, s swaps the cameras, p moves the \
            small picture (pip) or steps the framing (fill from the top, centre, bottom, or fit); Ctrl-C stops too, and a second Ctrl-C leaves at once (the agents record on; \
            `dualcam-coordinator resume` finishes the session).
            """)

    @OptionGroup var agents: AgentChoice
    @Option(parsing: .unconditional, help: "Seconds to record (default: until Enter or Ctrl-C).") var duration: Double?
    @Option(help: "Output folder (one sub-folder per session).") var out = "DualCam"
    @OptionGroup var take: TakeOptions
    @OptionGroup var state: StateOption

    func run() async throws {
        let logger = CommandSupport.logger()
        let progress: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        let outputDirectory = URL(fileURLWithPath: out).standardizedFileURL.path
        let identity = try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator")
        let terminal: @Sendable (Rig) async -> Void = { rig in
            TerminalClient(rig: rig).attach(keys: true, takesInterrupts: true)
        }
        for unfinished in SessionResumer.unfinished(in: outputDirectory, warn: progress) {
            progress("an unfinished session is in \(unfinished); finishing it first (its agents recorded on)")
            let result = try await SessionResumer(sessionDirectory: unfinished, identity: identity, logger: logger,
                                                  reconnectGraceSeconds: take.reconnectGrace, progress: progress).run(attach: terminal)
            CommandSupport.report(result)
        }
        var plan = try take.plan(agents: try await agents.endpoints(identity: identity, stateDirectory: state.directory, progress: progress),
                                 outputDirectory: outputDirectory, duration: duration)
        if agents.rolesByName { plan.roles = [.host, .guest].prefix(plan.agents.count).map { $0 } }
        let result = try await SessionRecorder(plan: plan, identity: identity, logger: logger, progress: progress).run(attach: terminal)
        KeyReader.restoreTerminal()
        CommandSupport.report(result)
    }
}

struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Finish a session whose coordinator was killed: reconnect to its agents, which recorded on, and collect the rest.")

    @Argument(help: "The session's folder or ID (default: the newest unfinished session in --out).") var session: String?
    @Option(help: "Output folder holding the sessions.") var out = "DualCam"
    @Option(parsing: .unconditional, help: "Seconds to wait after the stop for an agent that does not answer.") var reconnectGrace = 30.0
    @OptionGroup var state: StateOption

    func run() async throws {
        let logger = CommandSupport.logger()
        let progress: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        let outputDirectory = URL(fileURLWithPath: out).standardizedFileURL.path
        let directory: String
        if let session {
            let asPath = URL(fileURLWithPath: session).standardizedFileURL.path
            directory = FileManager.default.fileExists(atPath: asPath + "/session.json") ? asPath : outputDirectory + "/" + session
        } else {
            guard let newest = SessionResumer.unfinished(in: outputDirectory).last else {
                throw ValidationError("no unfinished session in \(outputDirectory); name one, or pass --out")
            }
            directory = newest
        }
        let identity = try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator")
        let result = try await SessionResumer(sessionDirectory: directory, identity: identity, logger: logger,
                                              reconnectGraceSeconds: reconnectGrace, progress: progress).run(attach: { rig in
            TerminalClient(rig: rig).attach(keys: true, takesInterrupts: true)
        })
        KeyReader.restoreTerminal()
        CommandSupport.report(result)
    }
}
