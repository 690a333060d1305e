import DualCamCore
import DualCamNet
import Foundation
import Logging

/// `dualcam-coordinator demo`: N agents with synthetic sources on this machine, driven
/// over the real protocol (mutual TLS, clock sync, segments), as a user's rig would be.
public struct DemoOptions: Sendable {
    public var cameras = 2
    /// `--director auto`: the demo's combined file cut to whoever speaks.
    public var director: DirectorSettings?
    public var loudnessTarget: Double? = ProgrammeLoudness.defaultTarget
    public var durationSeconds = 10.0
    public var outputDirectory: String
    public var width = 1280
    public var height = 720
    public var rate = FrameRate.fps30
    public var layout = LayoutSpec(kind: .pip)
    public var filter = Filter(kind: .none)
    public var genlock = true
    /// Free-running cameras are steered onto the grid (`--no-phase-lock`: not).
    public var phaseLock = true
    /// The programme streamed live (`--stream`).
    public var streams: [StreamDestination] = []
    public var streamMaxBitrate: Int?
    /// The streams' own size (`--stream-size`; nil: the take's).
    public var streamSize: (width: Int, height: Int)?
    /// Live without recording (`--live-only`): the take streams and keeps nothing.
    public var liveOnly = false
    /// Free-running: each synthetic sensor's crystal error in ppm, in camera order (host
    /// +120, guest −80, as two cheap modules might be; further cameras repeat the list).
    public var crystalPPMs: [Double] = [120, -80]
    /// Testing: the guest's clock estimate steps by this many µs at this many seconds
    /// after it starts (0: never).
    public var guestEstimateStepMicroseconds = 0.0
    public var guestEstimateStepAtSeconds = 0.0
    public var guestClockOffsetMs = 0.0
    public var guestClockSkewPPM = 0.0
    /// With free-running cameras, each one's phase in ms after the frame grid, in camera
    /// order (missing: arbitrary, as real cameras'): a known worst case to show or test.
    public var freeRunPhasesMs: [Double] = []
    /// The guest's simulated sound card rate error against its own clock.
    public var guestAudioRatePPM = 0.0
    public var mix = AudioMixSpec.all
    /// The agents record their synthetic sound (tone bursts) beside the pictures.
    public var sound = true
    /// One sound file per agent (host, guest, then the extra cameras), each played as that
    /// agent's microphone from T0 (`--audio file:`); empty: the tone bursts.
    public var audioFiles: [String] = []
    public var agentExecutable: String
    public var coordinatorStateDirectory: String
    public var clockThresholdNanoseconds: Int64? = nil
    public var clockSyncTimeoutNanoseconds: Int64 = 30_000_000_000

    public init(outputDirectory: String, agentExecutable: String, coordinatorStateDirectory: String) {
        self.outputDirectory = outputDirectory
        self.agentExecutable = agentExecutable
        self.coordinatorStateDirectory = coordinatorStateDirectory
    }
}

public struct DemoRunner {
    let options: DemoOptions
    let logger: Logger

    /// What the demo's agents ask of their automatic preset (`--preset-headroom`), where a
    /// rig's node asks 1.5. Their measurement sees the other agents measuring beside it,
    /// but not the coordinator's live composite (it starts with the take) nor the studio's
    /// browser, which share this machine too. At 1.5 the agents took 1280x720 at `faster`
    /// and about 0.8 of the two cores, the composite ran at half real time and the
    /// previews waited for the CPU (issue 37); at 2.5 they take `veryfast` or faster.
    static let agentPresetHeadroom = 2.5

    public init(options: DemoOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// `attach`: a screen for the rig once it is up (the terminal); without one, the
    /// rig's notices go to `progress`.
    public func run(progress: @escaping @Sendable (String) -> Void,
                    attach: (@Sendable (Rig) async -> Void)? = nil) async throws -> TakeResult {
        let demo = try await launch(progress: progress)
        defer { demo.stop() }
        do {
            return try await TakeRecorder(plan: demo.plan, identity: demo.identity, logger: logger, progress: progress)
                .run(attach: attach)
        } catch {
            demo.showLogs(progress)
            throw error
        }
    }

    /// The demo's agents on a rig kept up for a screen (`demo --studio`): `body` gets the
    /// rig, connected, and the plan takes start with; the agents stop when it returns.
    public func serve(progress: @escaping @Sendable (String) -> Void,
                      body: @Sendable (Rig, TakePlan) async throws -> Void) async throws {
        let demo = try await launch(progress: progress)
        defer { demo.stop() }
        let rig = Rig(agents: demo.plan.agents, identity: demo.identity, logger: logger)
        let loop = Task { await rig.run() }
        do {
            try await rig.connect()
            try await body(rig, demo.plan)
        } catch {
            demo.showLogs(progress)
            rig.shutdown(sendShutdown: true)
            await loop.value
            throw error
        }
        rig.shutdown(sendShutdown: true)
        await loop.value
    }

    /// The demo's agents, started and found, and the plan for them.
    struct Launched {
        let identity: DeviceIdentity
        let children: [ChildAgent]
        let plan: TakePlan
        let scratch: String

        func stop() {
            for child in children { child.stop() }
            try? FileManager.default.removeItem(atPath: scratch)
            ChildReaper.shared.untrackScratch(scratch)
        }

        func showLogs(_ progress: @Sendable (String) -> Void) {
            for child in children {
                let log = (try? String(contentsOfFile: child.logPath, encoding: .utf8)) ?? ""
                if !log.isEmpty { progress("--- agent \(child.role) log (last lines) ---\n" + log.split(separator: "\n").suffix(15).joined(separator: "\n")) }
            }
        }
    }

    private func launch(progress: @escaping @Sendable (String) -> Void) async throws -> Launched {
        guard options.cameras >= 1 else { throw CoordinatorError("--cameras must be at least 1") }
        let soundFiles = try DemoSoundFiles.check(options)
        guard FileManager.default.isExecutableFile(atPath: options.agentExecutable) else {
            throw CoordinatorError("cannot find dualcam-agent at \(options.agentExecutable); build it (swift build) or set DUALCAM_AGENT")
        }
        let identity = try DeviceIdentity.loadOrCreate(in: options.coordinatorStateDirectory, commonName: "dualcam-coordinator")
        try FileManager.default.createDirectory(atPath: options.outputDirectory, withIntermediateDirectories: true)
        let scratch = NSTemporaryDirectory() + "dualcam-demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

        ChildReaper.shared.installSignalHandlers()
        ChildReaper.shared.trackScratch(scratch)
        var children: [ChildAgent] = []
        var launched = false
        defer {
            if !launched {
                for child in children { child.stop() }
                try? FileManager.default.removeItem(atPath: scratch)
                ChildReaper.shared.untrackScratch(scratch)
            }
        }
        let roles = (0..<options.cameras).map { $0 == 0 ? "host" : $0 == 1 ? "guest" : "camera" }
        for (i, role) in roles.enumerated() {
            var args = ["run", "--source", "synthetic", "--role", role, "--name", "demo-\(role)\(i > 1 ? "\(i + 1)" : "")",
                        "--listen", "::", "--port", "0", "--state", scratch + "/agent\(i)",
                        "--trust", "\(identity.deviceID)", "--size", "\(options.width)x\(options.height)",
                        "--fps", "\(options.rate)", "--exit-with-parent", "--allow-remote-shutdown",
                        // Announced on loopback only; listening on both families (falling back
                        // to IPv4 where IPv6 is off) because mDNS may resolve either first.
                        "--mdns-interface", "lo",
                        "--preset-headroom", "\(Self.agentPresetHeadroom)"]
            if !options.genlock { args.append("--free-run") }
            if !options.genlock, i < options.freeRunPhasesMs.count { args += ["--free-run-phase-ms", "\(options.freeRunPhasesMs[i])"] }
            if !options.genlock, !options.crystalPPMs.isEmpty {
                args += ["--free-run-crystal-ppm", "\(options.crystalPPMs[i % options.crystalPPMs.count])"]
            }
            if !options.sound { args += ["--audio", "none"] }
            if let file = soundFiles?[i] { args += ["--audio", "file:" + file] }
            if role == "guest" {
                args += ["--simulate-clock-offset-ms", "\(options.guestClockOffsetMs)",
                         "--simulate-clock-skew-ppm", "\(options.guestClockSkewPPM)",
                         "--simulate-audio-rate-ppm", "\(options.guestAudioRatePPM)"]
                if options.guestEstimateStepMicroseconds != 0 {
                    args += ["--simulate-estimate-step-us", "\(options.guestEstimateStepMicroseconds)",
                             "--simulate-estimate-step-at-s", "\(options.guestEstimateStepAtSeconds)"]
                }
            }
            children.append(try ChildAgent(executable: options.agentExecutable, role: role, arguments: args,
                                           logPath: scratch + "/agent\(i).log"))
            progress("started agent \(role) (pid \(children[i].process.processIdentifier), port \(children[i].endpoint.port))")
        }
        var plan = TakePlan(agents: try await locate(children, progress: progress), outputDirectory: options.outputDirectory,
                               durationSeconds: options.durationSeconds)
        plan.demo = true
        plan.width = options.width
        plan.height = options.height
        plan.rate = options.rate
        plan.layout = options.layout
        plan.filter = options.filter
        plan.mix = options.mix
        plan.director = options.director
        plan.loudnessTarget = options.loudnessTarget
        plan.genlock = options.genlock
        plan.phaseLock = options.phaseLock
        plan.streams = options.streams
        plan.streamMaxBitrate = options.streamMaxBitrate
        plan.streamSize = options.streamSize
        plan.liveOnly = options.liveOnly
        plan.clockThresholdNanoseconds = options.clockThresholdNanoseconds
        plan.clockSyncTimeoutNanoseconds = options.clockSyncTimeoutNanoseconds
        launched = true
        return Launched(identity: identity, children: children, plan: plan, scratch: scratch)
    }

    /// Finds the agents as a rig would, over mDNS, when avahi-daemon is up; the demo knows
    /// its children's addresses, so when mDNS fails in any way (no daemon, a slow or
    /// filtered network) it takes the loopback addresses they printed, and says so: a demo
    /// once failed with "name it with --agent", which the demo does not take.
    private func locate(_ children: [ChildAgent], progress: @Sendable (String) -> Void) async throws -> [AgentEndpoint] {
        do {
            let found = try await AgentFinder.find(children.map(\.endpoint.deviceID), timeoutSeconds: 10, progress: progress)
            if zip(found, children).allSatisfy({ $0.port == $1.endpoint.port }) { return found }
            progress("mDNS gave other ports than the demo's agents listen on; using the addresses they printed")
        } catch let error as AvahiError where error.daemonMissing {
            progress("discovery unavailable (\(error)); using the agents' loopback addresses")
        } catch {
            progress("the demo's agents were not found over mDNS (\(error)); using the addresses they printed")
        }
        return children.map(\.endpoint)
    }
}
