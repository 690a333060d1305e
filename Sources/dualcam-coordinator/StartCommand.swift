import ArgumentParser
import DualCamCoordinator
import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation

/// How a take records: the options `start` and `serve` share.
struct TakeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Quality preset: \(QualityPreset.helpText). `demo` records 1280x720 instead, so that its agents and coordinator keep real time on one machine."))
    var preset = QualityPreset.standard.rawValue
    @Option(help: "Picture size WxH (overrides the preset).") var size: String?
    @Option(help: "Frame rate (overrides the preset).") var fps: String?
    @Option(help: "Encoder on the agents: libx264, libx265, h264_v4l2m2m (overrides the preset).") var encoder: String?
    @Option(parsing: .unconditional, help: "Constant quality, 0-51 (overrides the preset).") var crf: Int?
    @Option(help: "Bit rate, e.g. 8M or 2500k (instead of constant quality).") var bitrate: String?
    @Option(parsing: .unconditional, help: "Countdown before the start: 0 (off), 3, 10 or any number of seconds.") var countdown = 3
    @Option(parsing: .unconditional, help: "Seconds to wait after the stop for an agent whose connection was lost.") var reconnectGrace = 30.0
    @Option(help: "Agents (names or roles, comma-separated, e.g. host,guest) without which no take starts (default: `require` in coordinator.conf).")
    var require: String?
    @OptionGroup var layout: LayoutOptions
    @OptionGroup var direction: DirectorOptions
    @OptionGroup var clockSync: ClockSyncOptions
    @OptionGroup var streaming: StreamOptions

    /// Everything the options alone can tell, before agents are looked for (seconds).
    func validate() throws {
        try CoordinatorRanges.checkTake(countdown: countdown, reconnectGrace: reconnectGrace, crf: crf, size: size, bitrate: bitrate)
        if let fps, let problem = FrameRate.optionProblem(fps) { throw ValidationError(problem) }
        do { _ = try QualityPreset.parse(preset) } catch { throw ValidationError("\(error)") }
        if let encoder, let problem = VideoEncoderSettings.problem(encoder: encoder, preset: nil) { throw ValidationError(problem) }
        if layout.layout == nil {
            do { _ = try CoordinatorConfig().layout() } catch { throw ValidationError("\(error)") }
        }
        _ = try direction.settings()
    }

    /// The plan for `agents`, every option checked before anything slow happens; the
    /// defaults taken from the config file are said through `progress`.
    func plan(agents: [AgentEndpoint], outputDirectory: String, duration: Double?, config: CoordinatorConfig = CoordinatorConfig(),
              progress: (String) -> Void = { _ in }) throws -> TakePlan {
        var plan = TakePlan(agents: agents, outputDirectory: outputDirectory, durationSeconds: duration)
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
        for note in config.notes { progress("warning: " + note) }
        let configured = layout.layout == nil ? try config.layout() : nil
        if let configured { progress("layout \(configured) (the default in \(config.path))") }
        plan.layout = try layout.spec(remembered: configured)
        plan.required = require.map(RequiredAgents.parse) ?? config.required
        if require == nil && !plan.required.isEmpty {
            progress("requires \(plan.required.joined(separator: ", ")) (the default in \(config.path))")
        }
        plan.filter = try layout.look()
        plan.mix = try layout.mixSpec()
        plan.director = try direction.settings(config: config)
        plan.loudnessTarget = try layout.loudnessTarget()
        if let director = plan.director { progress(director.summary) }
        plan.clockThresholdNanoseconds = clockSync.thresholdNanoseconds
        plan.clockSyncTimeoutNanoseconds = clockSync.timeoutNanoseconds
        try streaming.apply(to: &plan, config: config, progress: progress)
        plan.phaseLock = !clockSync.noPhaseLock
        if plan.phaseLock, !(try config.phaseLock()) {
            plan.phaseLock = false
            progress("no phase lock (phase-lock = off in \(config.path))")
        }
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
                   progress: @escaping @Sendable (String) -> Void) async throws -> AgentSelection.Selection {
        let paired = PairedDevices(stateDirectory: stateDirectory)
        if host != nil || guest != nil {
            guard agent.isEmpty else { throw ValidationError("give agents either by --host/--guest name or by --agent, not both") }
            guard let host, let guest else { throw ValidationError("--host and --guest go together") }
            return .init(endpoints: try await AgentSelection.byName(host: host, guest: guest, paired: paired, seconds: discoverSeconds,
                                                                    progress: progress))
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
    @Option(help: "Output folder, one sub-folder per session (default: the library, ~/Videos/DualCam or `library =` in coordinator.conf).")
    var out: String?
    @OptionGroup var take: TakeOptions
    @OptionGroup var state: StateOption
    @Option(name: .customLong("camera"), parsing: .unconditionalSingleValue,
            help: "Camera settings before the take, as `camera` takes them, e.g. --camera \"guest --zoom 2 --lock exposure\" (repeatable).")
    var cameraWords: [String] = []
    @Flag(help: "Without a terminal, record even when a paired node of the last take is missing or NOT READY (its camera is missing); at a terminal `start` asks instead.")
    var allowMissing = false

    func run() async throws {
        Interrupts.install()
        let rigLock = try RigLock(stateDirectory: state.directory, purpose: "start")
        defer { withExtendedLifetime(rigLock) {} }
        let logger = CommandSupport.logger()
        let progress: @Sendable (String) -> Void = { line in Console.error(line) }
        let outputDirectory = try CommandSupport.outputFolder(out)
        let identity = try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator")
        let cameraSettings = try cameraWords.map { try CameraArguments.parse($0.split(separator: " ").map(String.init)) }
        let terminal: @Sendable (Rig) async -> Void = { rig in
            // What a camera refuses is said, and the take records anyway.
            for settings in cameraSettings {
                do { _ = try await settings.perform(on: rig, say: progress) } catch { progress("camera: \(error)") }
            }
            TerminalClient(rig: rig).attach(keys: true, takesInterrupts: true)
        }
        for unfinished in TakeResumer.unfinished(in: outputDirectory, warn: progress) {
            let id = (unfinished as NSString).lastPathComponent
            let question = "take \(id) was not finished (in \(unfinished)): its agents may still be recording it, and they take no "
                + "other take until it ends. Finish it now (stop it and collect its files)?"
            switch Console.ask(question, yesByDefault: true) {
            case false?:
                progress("\(id) left as it is: `dualcam-coordinator resume \(id)` finishes it later")
                continue
            case true?:
                progress("finishing \(id) first")
            case nil:
                progress("take \(id) was not finished (in \(unfinished)); finishing it first: its agents may still be recording it "
                         + "(no terminal to ask; `resume \(id)` would do the same)")
            }
            do {
                try await CommandSupport.finish(TakeResumer(sessionDirectory: unfinished, identity: identity, logger: logger,
                                                               reconnectGraceSeconds: take.reconnectGrace, progress: progress),
                                                attach: terminal)
            } catch {
                // It stays as it is for `resume`; the new take is not held hostage by it.
                progress("warning: \(id) could not be finished (\(error)); recording the new take. Later: `dualcam-coordinator resume \(id)`, "
                         + "`resume \(id) --without NAME` for an agent that is gone, or `resume \(id) --abandon` for what is held")
            }
        }
        let selection = try await agents.endpoints(identity: identity, stateDirectory: state.directory, progress: progress)
        var plan = try take.plan(agents: selection.endpoints, outputDirectory: outputDirectory, duration: duration, progress: progress)
        plan.absentAgents = selection.absent
        if agents.rolesByName { plan.roles = [.host, .guest].prefix(plan.agents.count).map { $0 } }
        progress("connecting to " + plan.agents.map { "\($0.host):\($0.port)" }.joined(separator: ", ") + "…")
        do {
            let confirm = leftOutCheck(selection: selection, outputDirectory: outputDirectory, progress: progress)
            let result = try await TakeRecorder(plan: plan, identity: identity, logger: logger, progress: progress)
                .run(confirm: confirm, attach: terminal)
            KeyReader.restoreTerminal()
            CommandSupport.report(result)
        } catch let cancelled as TakeCancelled {
            KeyReader.restoreTerminal()
            progress("\(cancelled)")
            throw ExitCode(cancelled.folderKept ? 1 : Interrupts.received?.exitCode ?? 1)
        }
    }
}

extension Start {
    /// Once every agent answered: a node of the last take that is missing or NOT READY is
    /// left out only when the person agrees (a terminal's question) or said so beforehand
    /// (`--allow-missing`); otherwise `start` refuses, saying which node and why.
    func leftOutCheck(selection: AgentSelection.Selection, outputDirectory: String,
                      progress: @escaping @Sendable (String) -> Void) -> @Sendable (RigSnapshot) async throws -> Void {
        let absent = selection.absentNodes
        let lastTake = LastTake.deviceIDs(in: [outputDirectory])
        let paired = Set(((try? PairedDevices(stateDirectory: state.directory).entries()) ?? []).map(\.deviceID))
        let named = !agents.agent.isEmpty || agents.rolesByName
        let allowMissing = self.allowMissing
        return { snapshot in
            let left = LeftOutNodes(agents: snapshot.agents, absent: absent, lastTake: lastTake, paired: paired, named: named)
            guard !left.isEmpty else { return }
            if allowMissing {
                // The take's own warnings say it again as it starts ("recording without …").
                return
            }
            // Without a terminal the refusal says the same sentences, once.
            if Console.canAsk { for sentence in left.sentences { progress(sentence) } }
            switch Console.ask(left.question, yesByDefault: false) {
            case true?:
                return
            case false?:
                throw CoordinatorError("not recording: start again once \(left.names) \(left.nodes.count == 1 ? "is" : "are") ready, "
                    + "or answer y to record without \(left.nodes.count == 1 ? "it" : "them")")
            case nil:
                throw CoordinatorError(left.refusal)
            }
        }
    }
}

struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Finish a session whose coordinator was killed: reconnect to its agents, which recorded on, and collect the rest.")

    @Argument(help: "The session's folder or ID (default: the newest unfinished session in --out).") var session: String?
    @Option(help: "Folder holding the sessions (default: the library).") var out: String?
    @Option(parsing: .unconditional, help: "Seconds to wait after the stop for an agent that does not answer.") var reconnectGrace = 30.0
    @Option(help: "Finish without this agent (by name; repeatable): what is held of it is kept, nothing more is asked of it.")
    var without: [String] = []
    @Flag(help: "Finish from what this coordinator holds, asking no agent (an agent still recording it records on).")
    var abandon = false
    @OptionGroup var state: StateOption

    func run() async throws {
        Interrupts.install()
        let rigLock = try RigLock(stateDirectory: state.directory, purpose: "resume")
        defer { withExtendedLifetime(rigLock) {} }
        let logger = CommandSupport.logger()
        let progress: @Sendable (String) -> Void = { line in Console.error(line) }
        let outputDirectory = URL(fileURLWithPath: out ?? SessionHome.directory()).standardizedFileURL.path
        let directory: String
        if let session {
            let asPath = URL(fileURLWithPath: session).standardizedFileURL.path
            directory = FileManager.default.fileExists(atPath: asPath + "/session.json") ? asPath : outputDirectory + "/" + session
        } else {
            guard let newest = TakeResumer.unfinished(in: outputDirectory).last else {
                throw ValidationError("no unfinished session in \(outputDirectory); name one, or pass --out")
            }
            directory = newest
        }
        if abandon {
            let library = SessionLibrary(directories: [(directory as NSString).deletingLastPathComponent])
            let result = try await library.abandon(try library.resolve((directory as NSString).lastPathComponent), logger: logger,
                                                   progress: progress)
            CommandSupport.report(result)
            return
        }
        let identity = try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator")
        try await CommandSupport.finish(TakeResumer(sessionDirectory: directory, identity: identity, logger: logger,
                                                       reconnectGraceSeconds: reconnectGrace, without: without,
                                                       progress: progress), attach: { rig in
            TerminalClient(rig: rig).attach(keys: true, takesInterrupts: true)
        })
        KeyReader.restoreTerminal()
    }
}

extension CommandSupport {
    /// Finishes an unfinished session; one cancelled during its countdown is only stopped
    /// on its agents and removed, which is its end too (a later `start` goes on).
    static func finish(_ resumer: TakeResumer, attach: @escaping @Sendable (Rig) async -> Void) async throws {
        do {
            report(try await resumer.run(attach: attach))
        } catch let cancelled as TakeCancelled {
            Console.error("\(cancelled)")
            if cancelled.folderKept { throw ExitCode(1) }
        }
    }
}

/// `--stream URL` (repeatable) and `--stream-bitrate`: the programme streamed live while
/// the take records (docs/LIVE.md).
struct StreamOptions: ParsableArguments {
    @Option(help: "Stream the programme (the combined picture and its sound) live to this rtmp://, rtmps:// or srt:// address while recording (repeatable; default: `stream =` in coordinator.conf). The key is never printed in full.")
    var stream: [String] = []
    @Option(help: "The programme's bitrate ceiling while streaming, e.g. 6M (default by the streams' size: 1.5M up to 360p, 2.5M up to 480p, 4.5M up to 720p, 6M up to 1080p, 12M above); the combined file shares it, unless --stream-size gives the streams an encode of their own.")
    var streamBitrate: String?
    @Option(help: "The streams' picture size WxH, e.g. 1280x720 (default: the take's). Another size than the take's encodes the programme a second time for the streams alone; the combined file keeps its own quality.")
    var streamSize: String?
    @Flag(help: "Stream without recording: the take streams the programme and keeps nothing, its folder and the agents' spools of it deleted as it ends (needs --stream or `stream =`). In serve, the studio's Go live with no take (or `live on`) does this, and Record then keeps it.")
    var liveOnly = false

    func validate() throws {
        do { for url in stream { _ = try StreamDestination(url) } } catch { throw ValidationError("\(error)") }
        _ = try maxBitrate()
        _ = try size()
    }

    func size() throws -> (width: Int, height: Int)? {
        guard let streamSize else { return nil }
        let (w, h) = try CommandSupport.parseSize(streamSize)
        guard w % 2 == 0, h % 2 == 0 else { throw ValidationError("--stream-size takes even sizes, e.g. 1280x720") }
        return (w, h)
    }

    func maxBitrate() throws -> Int? {
        guard let streamBitrate else { return nil }
        guard let bits = VideoEncoderSettings.parseBitrate(streamBitrate), (300_000...50_000_000).contains(bits) else {
            throw ValidationError("--stream-bitrate must be 300k to 50M, e.g. 6M")
        }
        return bits
    }

    /// The take's destinations: the flags, else the config file's.
    func apply(to plan: inout TakePlan, config: CoordinatorConfig?, progress: (String) -> Void) throws {
        do {
            plan.streams = try stream.map { try StreamDestination($0) }
            if plan.streams.isEmpty, let config {
                plan.streams = try config.streams()
                if !plan.streams.isEmpty { progress("streaming to \(plan.streams.map(\.shown).joined(separator: ", ")) (the default in \(config.path))") }
            }
        } catch let error as CoordinatorError { throw ValidationError(error.description) }
        plan.streamMaxBitrate = try maxBitrate()
        plan.streamSize = try size()
        if liveOnly {
            guard !plan.streams.isEmpty else {
                throw ValidationError("--live-only streams without recording, so it needs somewhere to stream: --stream URL (or `stream =` in coordinator.conf)")
            }
            plan.liveOnly = true
            progress("live without recording: nothing of this take is kept")
        }
        if !plan.streams.isEmpty {
            let size = plan.streamPicture
            progress("the programme streams live to \(plan.streams.map(\.shown).joined(separator: ", ")) at up to "
                + "\(plan.effectiveStreamBitrate / 1000) kbit/s"
                + (plan.streamsEncodedApart ? ", \(size.width)x\(size.height), encoded apart (the combined file keeps its own quality)"
                                             : " (the combined file shares that ceiling)"))
        }
    }
}
