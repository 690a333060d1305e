import ArgumentParser
import CLinux
import DualCamCoordinator
import DualCamCore
import DualCamMedia
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

@main
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dualcam-coordinator",
        abstract: "DualCam coordinator: syncs the agents' clocks, starts them together, collects and composes.",
        discussion: """
            Pair each camera node once (dualcam-coordinator pair), then record with start (the \
            terminal) or serve (the studio in a browser at http://127.0.0.1:8080/). Sessions go to \
            the library: DualCam in your videos folder (~/Videos/DualCam), or `library = PATH` in \
            $XDG_CONFIG_HOME/dualcam/coordinator.conf; list, show, recompose and delete work there. \
            Identity and pairings: $XDG_STATE_HOME/dualcam/coordinator (~/.local/state/dualcam/coordinator). \
            demo records a session from two synthetic agents on this machine (needs dualcam-agent too).
            """,
        version: Release.software("dualcam-coordinator") + " (protocol \(WireProtocol.major).\(WireProtocol.minor))",
        subcommands: [Demo.self, Start.self, Serve.self, Camera.self, Resume.self, Pair.self, Unpair.self, Paired.self, Discover.self, ID.self,
                      List.self, Show.self, Delete.self, Recompose.self, RebuildManifest.self, Export.self, Import.self])

    /// The generated entry point, after the allocator's settings: large blocks from mmap,
    /// given back to the system when freed, and few arenas, so that the decoders' and the
    /// encoder's buffers do not pile up take after take (see dc_tune_allocator and
    /// tools/bench/soak.sh).
    static func main() async {
        _ = dc_tune_allocator(128 * 1024, 4)
        OpenFileLimit.raise()
        do {
            var command = try parseAsRoot()
            // A mistyped key would otherwise leave a default in force unsaid (`libary =`
            // listed the wrong library); commands that never read the file are not held up.
            if type(of: command) is ReadsCoordinatorConfig.Type {
                try CoordinatorConfig().check()
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

struct StateOption: ParsableArguments {
    @Option(name: .long, help: "State folder holding the identity (default: $XDG_STATE_HOME/dualcam/coordinator).")
    var state: String?

    var directory: String { state ?? StatePaths.defaultDirectory(for: "coordinator") }
}

struct ClockSyncOptions: ParsableArguments {
    @Option(name: .customLong("clock-threshold-us"), parsing: .unconditional,
            help: "Start only when every agent's clock error bound is under this many microseconds (default: a twentieth of a frame, 1667 at 30 fps).")
    var thresholdMicroseconds: Int?
    @Option(name: .customLong("clock-sync-timeout"), parsing: .unconditional, help: "Seconds to wait for that before giving up.")
    var timeoutSeconds = 30.0
    @Flag(name: .customLong("no-phase-lock"), help: "Do not steer free-running cameras onto the shared frame grid in this take (the lock is on by default wherever a camera can be steered: the synthetic source, a Pi camera module; config: phase-lock = off).")
    var noPhaseLock = false

    func validate() throws {
        if let thresholdMicroseconds { try CoordinatorRanges.clockThresholdMicroseconds.validate(thresholdMicroseconds) }
        try CoordinatorRanges.clockSyncTimeout.validate(timeoutSeconds)
    }

    var thresholdNanoseconds: Int64? { thresholdMicroseconds.map { Int64($0) * 1000 } }
    var timeoutNanoseconds: Int64 { Int64(timeoutSeconds * 1e9) }
}

struct LayoutOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Composite layout (default: the one last chosen while recording, else pip): pip, split-vertical (full-width bands), split-horizontal (full-height columns), dominance (one large, the others whole below), equal (whole pictures side by side), grid (whole pictures in cells with gaps). docs/LAYOUTS.md shows each.",
        discussion: "Options may follow a colon, e.g. pip:position=top-left,size=40,border=6,border-color=white,radius=24,shadow,swap,margin=2% or split-vertical:fit or grid:fill,anchor=top."))
    var layout: String?
    @Option(help: "How pictures meet their slots: fill (cover the slot, cropping) or fit (the whole picture, with bars). Default: the layout's own (fit for equal and grid, else fill).")
    var fit: String?
    @Option(help: "What a filled picture keeps when its height is cropped: top, center (or centre), bottom. Default: top for split-vertical, else center.")
    var anchor: String?
    @Option(help: "Picture-in-picture position: top-left, top-right, bottom-left, bottom-right, center.") var pipPosition: String?
    @Option(parsing: .unconditional, help: "Picture-in-picture size in % of the output width: 15, 25 or 40.") var pipSize: Int?
    @Flag(help: "The second camera large, the first small (pip) / first in the other slot.") var swap = false
    @Option(help: "Filter for the combined file: none, vivid, dramatic, cool, warm, bw, sepia, cinematic.") var filter = "none"
    @Option(parsing: .unconditional, help: "Filter intensity, 0-100 %.") var filterIntensity = 100
    @Option(help: "Sound of the combined file: all (or both; every camera at 0 dB, the default), one role (host), or levels in dB (host=0,guest=-3). recompose keeps the session's mix unless given, and takes an import's name (or external: every import) for another recorder's sound.")
    var mix: String?
    @Option(help: "Integrated loudness of the combined file's sound, in LUFS: -16 (the default: podcasts, streaming), -23 (EBU R128 broadcast), or off (the plain mix). True peaks stay under -1 dBTP. The per-camera files and WAVs are never levelled.")
    var loudness: String?

    func loudnessTarget() throws -> Double? {
        do { return try loudness.map(ProgrammeLoudness.parse) ?? ProgrammeLoudness.defaultTarget } catch { throw ValidationError("\(error)") }
    }

    /// Cheap parses, so a typo is refused before a command finds agents or reads a file.
    func validate() throws {
        _ = try spec()
        _ = try look()
        _ = try mixSpec()
        _ = try loudnessTarget()
    }

    func mixSpec() throws -> AudioMixSpec {
        do { return try mix.map { try AudioMixSpec(parsing: $0) } ?? .all } catch { throw ValidationError("\(error)") }
    }

    /// The layout asked for; without --layout, `fallback` (the config file's default, or
    /// the session's own layout for recompose), else picture-in-picture.
    func spec(remembered fallback: LayoutSpec? = nil) throws -> LayoutSpec {
        do {
            var spec = try layout.map { try LayoutSpec(parsing: $0) } ?? fallback ?? LayoutSpec(kind: .pip)
            if let fit { spec.fit = try LayoutFit.parse(fit) }
            if let anchor { spec.anchor = try CropAnchor.parse(anchor) }
            if let pipPosition { spec.pip.position = try PiPPosition.parse(pipPosition) }
            if let pipSize { spec.pip.size = try PiPSize(percent: pipSize) }
            if swap { spec.pip.swapped = true }
            return spec
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func look() throws -> Filter {
        try CoordinatorRanges.filterIntensity.validate(filterIntensity)
        do {
            return Filter(kind: try FilterKind.parse(filter), intensity: filterIntensity)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

struct ID: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print this coordinator's device ID (creating its identity on first run).")
    @OptionGroup var state: StateOption

    func run() throws {
        print(try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator").deviceID)
    }
}

/// Commands that read coordinator.conf (the library, the default layout, the agents
/// required): each refuses a file with a line it cannot read.
protocol ReadsCoordinatorConfig {}

extension Start: ReadsCoordinatorConfig {}
extension Serve: ReadsCoordinatorConfig {}
extension Resume: ReadsCoordinatorConfig {}
extension List: ReadsCoordinatorConfig {}
extension Show: ReadsCoordinatorConfig {}
extension Delete: ReadsCoordinatorConfig {}
extension RebuildManifest: ReadsCoordinatorConfig {}
extension Recompose: ReadsCoordinatorConfig {}
extension Export: ReadsCoordinatorConfig {}

enum CommandSupport {
    static func logger() -> Logger {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        MediaLog.setQuiet()
        var logger = Logger(label: "dualcam-coordinator")
        logger.logLevel = ProcessInfo.processInfo.environment["DUALCAM_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .notice
        return logger
    }

    /// `--out` as an absolute path, made and proved writable before anything slow.
    /// Without `--out`, the library (`SessionHome`).
    static func outputFolder(_ out: String?) throws -> String {
        let path = URL(fileURLWithPath: out ?? SessionHome.directory()).standardizedFileURL.path
        do { try OutputFolder.prepare(path, option: out == nil ? "`library =` in \(CoordinatorConfig.defaultPath)" : "--out") } catch {
            throw ValidationError("\(error)")
        }
        return path
    }

    static func parseSize(_ text: String) throws -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...7680).contains(w), (1...4320).contains(h),
              w % 2 == 0, h % 2 == 0 else {
            throw ValidationError("--size must look like 1280x720 (even numbers, at most 7680x4320)")
        }
        return (w, h)
    }

    static func report(_ result: TakeResult) {
        guard result.kept else {
            say("Nothing kept: the take was live without recording (--live-only, or Go live with no take).")
            return
        }
        say("Session folder: \(result.sessionDirectory)")
        for file in result.perCameraFiles { say(file) }
        say(result.combinedFile)
        for file in result.soundFiles { say("Sound (uncompressed, for editors): \(file)") }
        say("Manifest: \(result.manifestFile)")
    }

    /// A line on stdout at once. Not through stdio: its buffer would hold the line back
    /// from a pipe, and flushing every stream waits on the stdin lock that the key reader
    /// holds while it waits for a line (seen: a take's report held until the next command).
    static func say(_ line: String) {
        Console.out(line)
    }
}

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a session from synthetic agents started on this machine, over the real protocol.")

    @Option(parsing: .unconditional, help: "Seconds to record.") var duration = 10.0
    @Option(help: "Output folder, one sub-folder per session (default: the library, ~/Videos/DualCam or `library =` in coordinator.conf).")
    var out: String?
    @Option(parsing: .unconditional, help: "Number of agents (host, guest, then extra cameras).") var cameras = 2
    @Option(help: "Picture size WxH (the demo's own default; `start` and `serve` record their preset's, 1080p for balanced).") var size = "1280x720"
    @Option(help: "Frame rate (24, 25, 30, 30000/1001, 50, 60).") var fps = "30"
    @OptionGroup var layout: LayoutOptions
    @OptionGroup var direction: DirectorOptions
    @Flag(help: "Free-running synthetic cameras, as real cameras behave (default: genlocked).") var freeRun = false
    @Option(help: "With --free-run: each camera's frame phase in ms after the shared clock's frame grid, comma-separated (default: arbitrary, as real cameras').")
    var freeRunPhasesMs: String?
    @Option(parsing: .unconditional, help: "Simulated clock offset of the guest agent, ms.") var guestClockOffsetMs = 0.0
    @Option(parsing: .unconditional, help: "Simulated clock skew of the guest agent, ppm.") var guestClockSkewPpm = 0.0
    @Option(parsing: .unconditional, help: "Simulated rate error of the guest's sound card against its clock, ppm.") var guestAudioRatePpm = 0.0
    @Option(help: "With --free-run: each camera's crystal error in ppm, comma-separated (default: 120,-80).")
    var crystalPpm: String?
    @Option(parsing: .unconditional, help: "Testing: the guest's clock estimate steps by this many µs at --guest-estimate-step-at-s (0: never).") var guestEstimateStepUs = 0.0
    @Option(parsing: .unconditional, help: "Testing: when the guest's clock estimate steps, in seconds after its agent starts.") var guestEstimateStepAtS = 0.0
    @Flag(help: "Pictures only: the agents record no sound.") var noSound = false
    @Option(help: "Sound files played as the agents' microphones from the take's start, one per agent, comma-separated: HOST,GUEST[,...] (WAV or anything FFmpeg decodes; default: tone bursts).")
    var audioFiles: String?
    @OptionGroup var clockSync: ClockSyncOptions
    @OptionGroup var streaming: StreamOptions
    @OptionGroup var state: StateOption
    @Flag(help: "Keep the demo's rig up with the studio (the browser screen) instead of recording one take; Ctrl-C ends it.")
    var studio = false
    @OptionGroup var studioOptions: StudioOptions

    func run() async throws {
        let logger = CommandSupport.logger()
        guard let rate = FrameRate(parsing: fps) else { throw ValidationError("--fps \(fps) is not a rate") }
        let (w, h) = try CommandSupport.parseSize(size)
        let agent = Self.agentExecutable()
        guard FileManager.default.isExecutableFile(atPath: agent) else {
            throw ValidationError("""
                the demo runs two agents on this machine, and there is no \(agent): install the dualcam-agent \
                package too (its service can stay off: sudo systemctl disable --now dualcam-agent), \
                or name the agent's program in DUALCAM_AGENT
                """)
        }
        var options = DemoOptions(outputDirectory: try CommandSupport.outputFolder(out),
                                  agentExecutable: agent, coordinatorStateDirectory: state.directory)
        options.cameras = cameras
        options.durationSeconds = duration
        options.width = w
        options.height = h
        options.rate = rate
        options.layout = try layout.spec()
        options.filter = try layout.look()
        options.genlock = !freeRun
        if let freeRunPhasesMs {
            let phases = freeRunPhasesMs.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard freeRun, phases.allSatisfy({ $0.map { (0...1000).contains($0) } ?? false }) else {
                throw ValidationError("--free-run-phases-ms takes milliseconds from 0 to 1000, comma-separated, with --free-run")
            }
            options.freeRunPhasesMs = phases.compactMap { $0 }
        }
        if let crystalPpm {
            let ppms = crystalPpm.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard freeRun, !ppms.isEmpty, ppms.allSatisfy({ $0.map { (-1000...1000).contains($0) } ?? false }) else {
                throw ValidationError("--crystal-ppm takes ppm from -1000 to 1000, comma-separated, with --free-run")
            }
            options.crystalPPMs = ppms.compactMap { $0 }
        }
        options.phaseLock = !clockSync.noPhaseLock
        var streamPlan = TakePlan(agents: [], outputDirectory: "", durationSeconds: nil)
        (streamPlan.width, streamPlan.height) = (w, h)
        try streaming.apply(to: &streamPlan, config: nil, progress: { Console.error($0) })
        (options.streams, options.streamMaxBitrate, options.streamSize) = (streamPlan.streams, streamPlan.streamMaxBitrate, streamPlan.streamSize)
        options.liveOnly = streamPlan.liveOnly
        guard (-10_000...10_000).contains(guestEstimateStepUs), (0...86_400).contains(guestEstimateStepAtS) else {
            throw ValidationError("--guest-estimate-step-us takes -10000 to 10000 µs, --guest-estimate-step-at-s 0 to 86400 s")
        }
        options.guestEstimateStepMicroseconds = guestEstimateStepUs
        options.guestEstimateStepAtSeconds = guestEstimateStepAtS
        options.guestClockOffsetMs = guestClockOffsetMs
        options.guestClockSkewPPM = guestClockSkewPpm
        options.guestAudioRatePPM = guestAudioRatePpm
        options.sound = !noSound
        options.audioFiles = audioFiles.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        options.mix = try layout.mixSpec()
        options.director = try direction.settings()
        if let director = options.director { Console.error(director.summary) }
        options.loudnessTarget = try layout.loudnessTarget()
        options.clockThresholdNanoseconds = clockSync.thresholdNanoseconds
        options.clockSyncTimeoutNanoseconds = clockSync.timeoutNanoseconds
        // Keys work in the demo too when a person is at the terminal; Ctrl-C stays the
        // demo's own (it ends the demo and its agents at once).
        let keys = isatty(STDIN_FILENO) == 1
        if studio {
            let studioOptions = self.studioOptions
            _ = try studioOptions.address()
            try await DemoRunner(options: options, logger: logger).serve(progress: { line in
                Console.error(line)
            }, body: { rig, demoPlan in
                // A take from the studio runs until it is stopped there.
                var plan = demoPlan
                plan.durationSeconds = nil
                TerminalClient(rig: rig, serving: true, startPlan: plan).attach(keys: keys, takesInterrupts: false)
                try await studioOptions.serve(rig: rig, plan: plan, logger: logger)
            })
            return
        }
        let result = try await DemoRunner(options: options, logger: logger).run(progress: { line in
            Console.error(line)
        }, attach: { rig in
            TerminalClient(rig: rig).attach(keys: keys, takesInterrupts: false)
        })
        KeyReader.restoreTerminal()
        CommandSupport.report(result)
    }

    /// The agent binary built next to this one, unless DUALCAM_AGENT names another.
    static func agentExecutable() -> String {
        if let explicit = ProcessInfo.processInfo.environment["DUALCAM_AGENT"], !explicit.isEmpty { return explicit }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (me as NSString).deletingLastPathComponent + "/dualcam-agent"
    }
}
