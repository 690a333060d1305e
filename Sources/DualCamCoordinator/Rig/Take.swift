import DualCamCore
import DualCamMedia
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// One take on the rig: performs what its `TakeMachine` decides (folders, Prepare,
/// StartAt, Stop, Resume, finishing) and keeps what arrives (segments, telemetry). Used by
/// the rig's event loop only, never from two places at once.
final class Take {
    var plan: TakePlan
    let logger: Logger
    let notice: @Sendable (String) -> Void
    var machine: TakeMachine
    var agents: [AgentTracker]
    /// The rig's record of every agent's link (`members[rigIndices[i]]` is take agent i's).
    let members: RigMembers
    /// The rig's index of each of the take's agents.
    let rigIndices: [Int]
    var sessionID: String
    var sessionDirectory: String
    private var lock: SessionLock?
    var record: SessionRecord?
    var outputs: SessionOutputs?
    /// Take agent → camera index in the outputs (agents left out have none).
    var cameraOf: [Int: Int] = [:]
    var layout: LayoutSpec
    /// The combined file's filter now (changed while recording, like the layout).
    var filter: FilterSetting
    /// The combined file's sound mix now.
    var mix: AudioMixSpec
    var warnings: [String] = []
    /// What the take records on each node, said as its countdown starts (`Preflight`).
    var preflight: [String] = []
    /// Connected nodes left out because their camera cannot record: "NAME [role]: why".
    var notReady: [String] = []
    var raised = Set<String>()
    var result: TakeResult?
    /// The live composite's measurement (`auto`), begun with the Prepare.
    var compositeProbe: CompositeProbe.Pending?
    /// The stop instant last told to the outputs.
    private var stopSignalled: Int64?
    var finishing: Task<Void, Never>?
    /// Frees the agents' spools of a take that was only live (`TakePlan.liveOnly`).
    var forgetter: (any SpoolForgetting)?
    let wallStart: Date
    /// The rig's clock: every instant the take feeds its machine.
    let clock: any TimeSource
    /// The rig's event loop, told when the files are final.
    let events: AsyncStream<RigEvent>.Continuation

    init(plan: TakePlan, agents: [AgentTracker], members: RigMembers, rigIndices: [Int], logger: Logger,
         notice: @escaping @Sendable (String) -> Void, clock: any TimeSource, events: AsyncStream<RigEvent>.Continuation) {
        self.clock = clock
        self.events = events
        self.plan = plan
        self.agents = agents
        self.members = members
        self.rigIndices = rigIndices
        self.logger = logger
        self.notice = notice
        layout = plan.layout
        filter = FilterSetting(plan.filter)
        mix = plan.mix
        compositeProbe = plan.measured?.composite
        wallStart = Date(timeIntervalSince1970: clock.wallSeconds)
        sessionID = SessionNaming.sessionID(for: wallStart)
        sessionDirectory = plan.outputDirectory + "/" + sessionID
        machine = TakeMachine(settings: Self.settings(plan), agents: agents.map(\.name))
    }

    /// Picks up a take whose coordinator was killed, from its folder.
    init(resuming record: SessionRecord, plan: TakePlan, sessionDirectory: String, agents: [AgentTracker],
         members: RigMembers, rigIndices: [Int], lock: SessionLock, logger: Logger, notice: @escaping @Sendable (String) -> Void,
         clock: any TimeSource, events: AsyncStream<RigEvent>.Continuation) throws {
        self.clock = clock
        self.events = events
        self.plan = plan
        self.agents = agents
        self.members = members
        self.rigIndices = rigIndices
        self.logger = logger
        self.notice = notice
        self.lock = lock
        self.record = record
        layout = plan.layout
        filter = FilterSetting(plan.filter)
        mix = plan.mix
        wallStart = Date(timeIntervalSince1970: record.wallStartUnixSeconds)
        sessionID = record.sessionID
        self.sessionDirectory = sessionDirectory
        machine = TakeMachine(settings: Self.settings(plan), agents: agents.map(\.name), resumingAt: record.t0SharedNanoseconds,
                              stop: record.stopSharedNanoseconds > 0 ? record.stopSharedNanoseconds : nil, now: clock.now)
        try openOutputs(cameras: Array(agents.indices), names: agents.map(\.cameraName), timecode: record.timecode)
    }

    /// A resumed take: what the killed coordinator held goes into the files again, in order.
    func refileHeld() {
        for (i, agent) in agents.enumerated() {
            guard let receiver = agent.receiver else { continue }
            for index in receiver.received.keys.sorted() {
                guard let path = receiver.received[index], let span = receiver.spans[index] else { continue }
                outputs?.add(segment: path, index: index, camera: i, firstPresentationNanoseconds: span.first, durationNanoseconds: span.duration)
                agents[i].receivedUpToNanoseconds = max(agents[i].receivedUpToNanoseconds, span.first + span.duration)
            }
            notice("  \(agent.name): \(receiver.received.count) segments held already")
            if !receiver.damaged.isEmpty {
                let list = receiver.damaged.map(String.init).joined(separator: ", ")
                warn("\(agent.name): segment\(receiver.damaged.count == 1 ? "" : "s") \(list) changed on this disk since "
                     + "\(receiver.damaged.count == 1 ? "it" : "they") arrived (checksum): set aside as .damaged and asked of the agent again")
            }
        }
    }

    static func settings(_ plan: TakePlan) -> TakeMachine.Settings {
        var s = TakeMachine.Settings(rate: plan.rate, durationNanoseconds: plan.durationSeconds.map { Int64($0 * 1e9) })
        s.countdownSeconds = plan.countdownSeconds
        s.startLeadNanoseconds = plan.startLeadNanoseconds
        s.clockThresholdNanoseconds = plan.clockThresholdNanoseconds
        s.clockWaitNanoseconds = plan.clockSyncTimeoutNanoseconds
        s.reconnectGraceNanoseconds = Int64(plan.reconnectGraceSeconds * 1e9)
        return s
    }

    var t0: Int64? { machine.t0 }
    var stopShared: Int64? { machine.stopInstant }

    /// Feeds the machine and performs what it returns.
    func feed(_ input: TakeMachine.Input) {
        let before = machine.phase
        let actions = machine.handle(input)
        for action in actions { perform(action) }
        if case .countingDown = machine.phase, case .preparing = before {
            let nodes = agents.indices.filter { machine.agents[$0].started }
            preflight = Preflight.lines(plan: plan, nodes: nodes.map(preflightNode), absent: plan.absentAgents,
                                        notReady: notReady, composite: compositeChoice(cameras: nodes.count),
                                        laptopFreeBytes: FreeSpace.bytes(at: plan.outputDirectory))
            for line in preflight { notice(line) }
        }
        if case .recording = machine.phase, case .countingDown = before {
            notice((plan.liveOnly ? "live, not recording, " : "recording ") + sessionID + (plan.durationSeconds.map { " for \($0) s" } ?? ""))
        }
        // The stop is known from StartAt for a take of set length, else from the operator's
        // stop: the composite encodes its last segment fast from there (CompositeSteering).
        if let stop = machine.stopInstant, let t0 = machine.t0, stop != stopSignalled {
            stopSignalled = stop
            outputs?.stopping(atPresentation: stop - t0)
        }
    }

    private func perform(_ action: TakeMachine.Action) {
        switch action {
        case .prepare(let who):
            do {
                try makeFolderIfNeeded()
                // Each agent hears the role it films in this take (`--host`/`--guest` may
                // differ from its own), which its test pattern then shows.
                let roles = plan.roles(overriding: agents.map(\.role))
                for i in who {
                    var prepare = plan.prepare(sessionID: sessionID)
                    prepare.role = roles[i]
                    if let preset = plan.measured?.agentPresets[agents[i].name], plan.preset == "auto" {
                        prepare.video.preset = preset
                    } else if machine.agents[i].rejoining, let encoder = agents[i].encoder {
                        // A restarted agent records on with the encoder and preset it was
                        // using, instead of measuring every preset again (2.4 s of the
                        // take lost on this machine) before its first frame.
                        prepare.video.encoder = encoder.encoder
                        prepare.video.preset = agents[i].presetNow ?? encoder.preset
                    }
                    send(.prepare(prepare), to: i)
                }
                if record == nil { notice("preparing \(sessionID) (\(plan.width)x\(plan.height) at \(plan.rate) fps)") }
                // Every camera of the take, not just these (a Prepare may go to one agent
                // that reconnected while the others prepare).
                measureComposite(cameras: machine.agents.filter(\.inTake).count)
            } catch {
                notice("cannot start: \(error)")
                feed(.stop(now: clock.now, reason: "\(error)"))
            }
        case .startAt(let who, let t0, let stop):
            do {
                try startAt(who, t0: t0, stop: stop)
            } catch {
                notice("cannot start: \(error)")
                feed(.stop(now: clock.now, reason: "\(error)"))
            }
        case .stop(let who, let at):
            if var record {
                record.stopSharedNanoseconds = at
                self.record = record
                do { try record.save(in: sessionDirectory) } catch { warn("cannot note the stop in session.json: \(error)") }
            }
            var stop = Dualcam_V1_Stop()
            stop.sessionID = sessionID
            stop.stopSharedNs = at
            for i in who { send(.stop(stop), to: i) }
        case .resume(let i):
            var resume = Dualcam_V1_Resume()
            resume.sessionID = sessionID
            resume.held = (agents[i].receiver?.received.keys.sorted() ?? []).map { UInt32(clamping: $0) }
            send(.resume(resume), to: i)
        case .giveUp(let i, let reason):
            if let camera = cameraOf[i] { outputs?.stopAwaiting(camera: camera) }
            warn("finishing without \(agents[i].name): \(reason); missing segments stay missing")
        case .finalise:
            // Beside the rig's loop, which hears `.finalised` when the files are final.
            let (sink, box) = (events, TakeBox(take: self))
            finishing = Task {
                do {
                    sink.yield(.finalised(try await box.take.finish(), nil))
                } catch {
                    sink.yield(.finalised(nil, box.take.explain(error)))
                }
            }
        case .discard:
            discardFolder()
        case .warn(let text):
            warn(text)
        }
    }

    private func makeFolderIfNeeded() throws {
        guard lock == nil else { return }
        fitToCameras()
        do {
            try FileManager.default.createDirectory(atPath: plan.outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw CoordinatorError("cannot make the library folder \(plan.outputDirectory): \(error.localizedDescription); choose another --out")
        }
        // mkdir is the take's claim on its ID: a folder of that name already there (an ID
        // drawn twice) is never shared, the take draws another before any agent hears it.
        while mkdir(sessionDirectory, 0o755) != 0 {
            let reason = errno
            guard reason == EEXIST else {
                throw CoordinatorError("cannot make the session folder \(sessionDirectory): \(String(cString: strerror(reason))); choose another --out")
            }
            sessionID = SessionNaming.sessionID(for: wallStart)
            sessionDirectory = plan.outputDirectory + "/" + sessionID
        }
        lock = try SessionLock(sessionDirectory: sessionDirectory, purpose: "recording")
    }

    /// What this take measured, for one that follows it at once (`TakePlan.measured`).
    var measured: TakePlan.Measured {
        var presets: [String: String] = [:]
        for agent in agents {
            if let preset = agent.presetNow { presets[agent.name] = preset }
        }
        return .init(agentPresets: presets, composite: compositeProbe)
    }

    /// Record pressed while the take is only live: its files are kept, from when it went
    /// live (a take's files cannot begin later than its start).
    func keepFiles(now: Int64) {
        plan.liveOnly = false
        let since = machine.t0.map { String(format: " %.0f s ago", Double(max(now - $0, 0)) / 1e9) } ?? ""
        notice("recording: this live take is kept, its files from when it went live\(since); Stop ends both")
    }

    /// The end of a take that was only live: its folder goes, and each agent is asked to
    /// free its spool of it. Off the rig's loop (from `finish`), so it reads only.
    func discardLiveOnly(_ result: TakeResult) async -> TakeResult {
        var result = result
        result.kept = false
        do {
            try FileManager.default.removeItem(atPath: sessionDirectory)
        } catch {
            notice("warning: could not delete \(sessionDirectory), a take that was only live: \(error.localizedDescription); "
                + "delete it with `dualcam-coordinator delete \(sessionID)`")
        }
        if let forgetter, let agents = record?.agents {
            let copies = await forgetter.forget(sessionID: sessionID, agents: agents)
            for line in AgentCopies.asked(sessionID: sessionID, copies).lines() { notice(line) }
        }
        notice("nothing kept: this take was live without recording")
        return result
    }

    /// A take that recorded nothing leaves nothing behind.
    private func discardFolder() {
        guard lock != nil, record?.recordedNothing ?? true else { return }
        lock = nil
        try? FileManager.default.removeItem(atPath: sessionDirectory)
    }

    private func startAt(_ who: [Int], t0: Int64, stop: Int64?) throws {
        // A StartAt once the files are open is for a restarted agent recording again.
        let rejoin = outputs != nil
        if outputs == nil {
            for (i, role) in plan.roles(overriding: agents.map(\.role)).enumerated() { agents[i].role = role }
            let names = SessionNaming.cameraNames(roles: who.map { agents[$0].role })
            for (camera, i) in who.enumerated() { agents[i].cameraName = names[camera] }
            var record = SessionRecord(
                plan: plan, sessionID: sessionID, wallStart: wallStart, t0: t0, stop: stop ?? 0,
                agents: who.map { i in
                    let a = agents[i]
                    return .init(name: a.name, role: a.role.name, deviceID: "\(a.endpoint.deviceID)", hosts: a.endpoint.hosts,
                                 port: a.endpoint.port)
                })
            record.layout = layout.description
            record.timecode = SessionTimecode.atT0(t0Shared: t0, nowShared: clock.now, rate: plan.rate)?.description
            try openOutputs(cameras: who, names: names, timecode: record.timecode)
            // Before StartAt: a coordinator killed from here on leaves what `resume` needs.
            try record.save(in: sessionDirectory)
            self.record = record
        }
        guard let start = record?.startAt else { return }
        for i in who {
            agents[i].startAtSent = true
            if rejoin {
                agents[i].rejoins += 1
                notice("\(agents[i].name) records again")
            }
            send(.startAt(start), to: i)
        }
    }

    /// Starts measuring the live composite (`auto`) beside the agents' Prepare: their own
    /// measurements take as long, so the result is there by the countdown.
    private func measureComposite(cameras: Int) {
        guard outputs == nil, CompositePreset.isAutomatic(plan) else { return }
        let key = CompositeProbe.key(plan: plan, cameras: cameras)
        if compositeProbe?.key != key { compositeProbe = CompositeProbe.start(plan: plan, cameras: cameras) }
    }

    /// The composite's line of the pre-flight: measured, or said when it comes.
    private func compositeChoice(cameras: Int) -> CompositePreset {
        guard let probe = compositeProbe, CompositePreset.isAutomatic(plan) else { return CompositePreset.choose(plan: plan, cameras: cameras) }
        let (plan, notice, logger) = (plan, notice, logger)
        let describe = { @Sendable (result: Result<CompositeMeasurement, Error>) -> CompositePreset in
            switch result {
            case .success(let measured): return CompositePreset.choose(plan: plan, cameras: cameras, measured: measured)
            case .failure(let error):
                var fixed = CompositePreset.choose(plan: plan, cameras: cameras)
                fixed.reason = "the measurement failed (\(error)); " + fixed.reason
                return fixed
            }
        }
        if let result = probe.current { return describe(result) }
        probe.whenLate { result in
            let choice = describe(result)
            logger.info("composite: \(choice.preset): \(choice.reason)")
            notice("  composite: \(plan.encoder) \(choice.preset), tune zerolatency (\(choice.reason))")
        }
        return CompositePreset(preset: "auto", reason: "still measuring: chosen before its first frame")
    }

    private func openOutputs(cameras: [Int], names: [String], timecode: String?) throws {
        for (camera, i) in cameras.enumerated() {
            cameraOf[i] = camera
            agents[i].cameraName = names[camera]
            agents[i].receiver = try SegmentReceiver(sessionDirectory: sessionDirectory, camera: names[camera])
        }
        outputs = try SessionOutputs(plan: plan, sessionDirectory: sessionDirectory, sessionID: sessionID,
                                     cameraNames: names, roles: cameras.map { agents[$0].role.name }, wallStart: wallStart,
                                     timecode: SessionTimecode.parse(timecode, fps: "\(plan.rate)"),
                                     logger: logger, compositeMeasurement: compositeProbe)
    }

    /// And at most what every node measured it can encode, where one refused a mode before.
    private func fitToEncoders() {
        let wanted = CaptureMode(width: plan.width, height: plan.height, rate: plan.rate)
        let nodes = agents.indices.map { i in plan.fitsSizeToCameras ? member(i).encodable : [] }
        guard let mode = EncodableFit.fit(wanted, nodes: nodes, lowersRate: plan.fitsRateToCameras), mode != wanted else { return }
        let slow = agents.indices.filter { !member($0).encodable.isEmpty }.map { agents[$0].name }.joined(separator: ", ")
        notice("recording at \(mode), not \(wanted): the most \(slow) can encode in real time (measured at its last Prepare)")
        (plan.width, plan.height, plan.rate) = (mode.width, mode.height, mode.rate)
    }

    /// A preset asks for at most what every camera delivers; settings given explicitly are
    /// kept, with a word on each camera that must scale its pictures up to meet them.
    private func fitToCameras() {
        let wanted = CaptureMode(width: plan.width, height: plan.height, rate: plan.rate)
        var mode = wanted
        if plan.fitsSizeToCameras || plan.fitsRateToCameras {
            let fitted = CaptureModeFit.fit(wanted, to: agents.indices.map { member($0).limits })
            if plan.fitsSizeToCameras { (mode.width, mode.height) = (fitted.width, fitted.height) }
            if plan.fitsRateToCameras { mode.rate = fitted.rate }
            if mode != wanted {
                let cameras = agents.indices.map { "\(agents[$0].name) \(member($0).limits)" }.joined(separator: ", ")
                notice("recording at \(mode), not \(wanted): the most every camera delivers (\(cameras))")
            }
            (plan.width, plan.height, plan.rate) = (mode.width, mode.height, mode.rate)
            fitToEncoders()
        }
        for note in CaptureModeFit.shortfalls(mode, cameras: agents.indices.map { (agents[$0].name, member($0).limits) }) {
            notice("warning: " + note)
        }
    }

    /// "preset faster (auto: 2.2x real time)", from an agent's Ready.
    static func encodingText(_ report: EncoderReport) -> String {
        guard let speed = report.speed else { return "preset \(report.preset)" }
        return "preset \(report.preset) (auto: \(String(format: "%.1f", speed))x real time)"
    }

    private func preflightNode(_ i: Int) -> Preflight.Node {
        let a = agents[i]
        let temperature = member(i).telemetry.map(\.cpuTemperatureC).flatMap { $0.isFinite ? $0 : nil }
        return Preflight.Node(name: a.name, role: a.role.name, source: a.source, freeDiskBytes: machine.agents[i].freeDiskBytes,
                              clockBoundNanoseconds: a.clock?.errorBoundNs, temperatureC: temperature,
                              encoding: a.encoder.map(Self.encodingText))
    }

    /// The rig's record of take agent `i`'s link.
    func member(_ i: Int) -> Rig.Member { members[rigIndices[i]] }

    func send(_ body: Dualcam_V1_Envelope.OneOf_Body, to i: Int) {
        guard let link = member(i).link else { return }
        do {
            try link.send(body)
        } catch {
            // Not allowed in the connection's phase (it crossed a message of the agent's),
            // or the connection is closing: its close event says why.
            logger.debug("not sent to \(agents[i].name): \(error)")
        }
    }

    func warn(_ text: String) {
        warnings.append(text)
        notice("warning: " + text)
        logger.info("\(text)")
    }

    /// Warns once per kind and agent.
    func warnOnce(_ key: String, _ text: String) {
        guard raised.insert(key).inserted else { return }
        warn(text)
    }
}

/// Hands the take to its finishing task.
private struct TakeBox: @unchecked Sendable {
    // Invariant: while the take is finalising the rig's loop no longer changes it (events
    // and commands stop at `isFinalising`); `finish` reads it and writes only its files.
    let take: Take
}
