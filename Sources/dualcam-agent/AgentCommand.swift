import ArgumentParser
import DualCamAgent
import DualCamCore
import DualCamMedia
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

@main
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dualcam-agent",
        abstract: "DualCam capture agent: records one camera and serves a coordinator over mutual TLS.",
        discussion: """
            Installed from the dualcam-agent package, the agent runs as the dualcam-agent service \
            (user dualcam, in the video and audio groups) with the settings in /etc/dualcam/agent.conf \
            (the long options of `run`, one `key = value` a line; after an edit: \
            sudo systemctl restart dualcam-agent). Its identity, pairings and spool are in \
            /var/lib/dualcam, which every command uses where it exists unless given --state; run \
            them as root (sudo dualcam-agent pair), and they act as the dualcam user. The service's \
            log, with its pairing codes: journalctl -u dualcam-agent. For a Raspberry Pi camera \
            module, enable dualcam-agent-picamera instead of dualcam-agent.
            """,
        version: Release.software("dualcam-agent") + " (protocol \(WireProtocol.major).\(WireProtocol.minor))",
        subcommands: [Run.self, Record.self, Cameras.self, Controls.self, Microphones.self, ID.self, Pair.self, Unpair.self, Paired.self],
        defaultSubcommand: Run.self)

    /// Parses by hand rather than through the generated entry point, to expand
    /// `--config FILE` first.
    static func main() async {
        // Before anything is encoded: x264 would otherwise get 2 MB pages (see HugePages).
        HugePages.disable()
        Allocator.tune()
        OpenFileLimit.raise()
        do {
            let given = Array(CommandLine.arguments.dropFirst())
            let arguments = try ConfigFile.expand(given, keys: given.contains("--config") ? configKeys(for: given) : nil)
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as ConfigFile.Failure {
            FileHandle.standardError.write(Data("dualcam-agent: \(failure)\n".utf8))
            Foundation.exit(64)
        } catch {
            exit(withError: error)
        }
    }
}

struct StateOption: ParsableArguments {
    @Option(name: .long, help: "State folder holding the identity and pairings (default: the service's /var/lib/dualcam where the package made it, else $XDG_STATE_HOME/dualcam/agent).")
    var state: String?

    var directory: String { ServiceState.defaultDirectory(given: state) }
}

struct ID: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print this agent's device ID (creating its identity on first run).")
    @OptionGroup var state: StateOption

    func run() throws {
        let identity = try DeviceIdentity.loadOrCreate(in: try state.enter(), commonName: "dualcam-agent")
        print(identity.deviceID)
    }
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve a coordinator: capture, encode, spool and upload segments.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "Role of this camera: host, guest or camera.") var role = "host"
    @Option(help: "Name shown to the coordinator.") var name: String?
    @Option(help: "Address to listen on; the default \"::\" takes IPv4 and IPv6 (IPv4 only where the host has no IPv6).") var listen = "::"
    @Option(parsing: .unconditional, help: "TCP port, 1-65535 (0 picks a free one).") var port = 7420
    @OptionGroup var state: StateOption
    @Option(help: "Spool folder for segments (default: <state>/spool).") var spool: String?
    @Option(help: "Device ID of a coordinator to trust besides the paired ones (repeatable).") var trust: [String] = []
    @Option(parsing: .unconditional, help: "While no coordinator is paired, open the pairing window at start for this many seconds (0: never).")
    var firstPairingWindow = 600
    @Flag(help: "Delete a segment from the spool once the coordinator has it durably (default: keep all).")
    var pruneAcknowledged = false
    @Option(parsing: .unconditional, help: "Seconds between telemetry lines in the log.") var telemetryLogSeconds = 10
    @Option(help: "Append every clock exchange (path t1 t2 t3 t4, in ns) to this file, to measure the network path.")
    var clockLog: String?
    @Flag(help: "Exit when the parent process exits (used by the demo).") var exitWithParent = false
    @Flag(help: "Honour the coordinator's Shutdown message (demo and tests).") var allowRemoteShutdown = false
    @Flag(inversion: .prefixedNo, help: "Announce this agent over mDNS (_dualcam._tcp) through avahi-daemon.") var mdns = true
    @Option(help: "Announce on this network interface only (e.g. lo, eth0; default: all).") var mdnsInterface: String?

    func validate() throws {
        try AgentRanges.port.validate(port)
        try AgentRanges.firstPairingWindow.validate(firstPairingWindow)
        try AgentRanges.telemetryLogSeconds.validate(telemetryLogSeconds)
    }

    func run() async throws {
        LoggingSystem.bootstrap { JournalLogHandler.make(label: $0) }
        MediaLog.setQuiet()
        // FFmpeg's and the encoders' complaints get a priority in the journal like ours.
        let media = Logger(label: "ffmpeg")
        MediaLog.route { level, line in
            switch level {
            case .error: media.error("\(line)")
            case .warning: media.warning("\(line)")
            case .info: media.info("\(line)")
            case .debug: media.debug("\(line)")
            }
        }
        var logger = Logger(label: "dualcam-agent")
        logger.logLevel = .info
        guard let wireRole = Dualcam_V1_Role(name: role) else { throw ValidationError("--role must be host, guest or camera") }
        var trusted = Set<DeviceID>()
        for text in trust {
            guard let id = DeviceID(parsing: text) else {
                throw ValidationError("--trust \(text) is not a device ID (check characters do not match; copy it again from `dualcam-coordinator id`)")
            }
            trusted.insert(id)
        }
        if exitWithParent { ParentWatch.exitWhenOrphaned() }
        let stateDirectory = try state.enter()
        let identity = try DeviceIdentity.loadOrCreate(in: stateDirectory, commonName: "dualcam-agent")
        var defaults = try capture.settings()
        if let note = capture.chosenSourceNote(defaults.source) { logger.info("\(note)") }
        let nodeName = name ?? "\(role)-\(ProcessInfo.processInfo.hostName)"
        // A synthetic picture says which node it comes from, in every file and layout.
        defaults.patternIdentity = PatternIdentity(name: nodeName, role: wireRole.name)
        var options = AgentOptions(
            name: nodeName, role: wireRole, listenHost: listen, port: port,
            stateDirectory: stateDirectory, spoolDirectory: spool ?? stateDirectory + "/spool", trusted: trusted,
            defaults: defaults,
            simulatedError: capture.simulatedError(), allowRemoteShutdown: allowRemoteShutdown)
        options.estimateStep = capture.estimateStep(startLocal: options.simulatedError.local(fromTrue: MonotonicTime.now()))
        options.announce = mdns
        options.announceInterface = mdnsInterface
        options.firstPairingWindowSeconds = firstPairingWindow
        options.pruneAcknowledged = pruneAcknowledged
        options.telemetryLogSeconds = telemetryLogSeconds
        options.clockLogPath = clockLog
        let server = AgentServer(options: options, identity: identity, logger: logger)
        let signals = SignalStream.make([SIGTERM, SIGINT])
        Task {
            for await _ in signals {
                logger.notice("stopping: finishing the current segment of any recording")
                let left = await AgentServer.finishRecordings(timeoutSeconds: 10)
                if left > 0 { logger.error("\(left) recording(s) did not finish within 10 s; completed segments are in the spool") }
                Foundation.exit(left > 0 ? 1 : 0)
            }
        }
        try await server.run { port in
            // The demo reads this line to learn the port and the ID to pin.
            FileHandle.standardOutput.write(Data("LISTENING port=\(port) id=\(identity.deviceID) role=\(role)\n".utf8))
        }
    }
}
