import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers

/// The coordinator's rig, for as long as the coordinator runs: one link per agent with its
/// clock and health, reconnection, and the takes recorded on it one after another without
/// reconnecting. Every screen is a client of its typed API: `snapshots()`, `notices()` and
/// `perform(_:)`. All its state changes on one event loop (`run`), fed by the links,
/// time and the commands.
public actor Rig {
    struct Member {
        var endpoint: AgentEndpoint
        var name: String
        var role: Dualcam_V1_Role = .unspecified
        var limits = CameraLimits.unknown
        /// What the node measured it can encode when it last refused a mode as too slow
        /// (empty: it never did); the next take's preset fitting keeps to it.
        var encodable: [CaptureMode] = []
        var link: (any RigLink)?
        var generation = 0
        /// Connected, lost since when, why, and what a close means (pure, in the core).
        var linkState = LinkMachine()
        var clock: Dualcam_V1_ClockStatus?
        var telemetry: Dualcam_V1_Telemetry?
        /// When the last Telemetry came: between takes an agent reports only while its
        /// preview is watched, and an old report must not pass for a live one.
        var telemetryAt: Int64 = 0
        var freeDiskBytes: UInt64 = 0
        var reconnecting: Task<Void, Never>?
        /// Whether this connection was last asked for a preview (§16).
        var previewAsked = false
        /// The agent's protocol minor (HelloAck): camera controls need 1.5.
        var protocolMinor: UInt32 = 0
        /// Why its camera cannot record now (HelloAck, then each SourceStatus; §4.1); nil: it can.
        var sourceProblem: String?

        var connected: Bool { linkState.isConnected }

        /// Connected, and its camera can record: a take records it.
        var recordable: Bool { connected && sourceProblem == nil }

        /// "NAME [role]: why", read after "NOT READY: " and "recording without ".
        var notReadyLine: String? { sourceProblem.map { "\(name) [\(role.name)]: \($0)" } }

        /// An agent's sentence as this screen may show it (printable, bounded); nil for "".
        static func problem(_ wire: String) -> String? {
            wire.isEmpty ? nil : WireIdentifier.printable(wire, maxCharacters: WireSentences.maxBytes)
        }
    }

    /// The coordinator's own identity (the studio's HTTPS certificate is this one).
    public nonisolated let identity: DeviceIdentity
    /// Every instant and deadline of the rig, its takes and its links (simulated in tests).
    public nonisolated let clock: any TimeSource
    private nonisolated let dialer: any LinkDialer
    /// Frees the agents' spools of a take that was only live.
    private nonisolated let forgetter: any SpoolForgetting
    let logger: Logger
    /// Every camera's live picture, for screens that show it.
    public nonisolated let previews: PreviewHub
    let members: RigMembers
    var take: Take?
    /// How the last take ended, kept for screens until the next one starts.
    private var lastTake: TakeStatus?
    /// Stop recording, stay live (`RigCommand.stopRecording`): the plan of the take that
    /// is only live, started as soon as the one stopping is over.
    private var liveAfter: TakePlan?
    private let events: AsyncStream<RigEvent>
    private let input: AsyncStream<RigEvent>.Continuation
    private let snapshotSubscribers = Subscribers<RigSnapshot>()
    private let noticeSubscribers = Subscribers<String>()
    private var lastSnapshot: RigSnapshot?
    private var connectWaiter: (deadline: Int64, continuation: CheckedContinuation<Void, any Error>)?
    private var takeWaiter: CheckedContinuation<TakeResult, any Error>?
    private var shuttingDown = false
    /// Camera requests sent and not answered yet (Rig+Camera).
    var cameraWaiters: [UInt64: CameraWaiter] = [:]
    var nextCameraRequest: UInt64 = 1

    public init(agents: [AgentEndpoint], identity: DeviceIdentity, logger: Logger,
                preview: PreviewHub.Settings = PreviewHub.Settings(), clock: any TimeSource = SystemClock()) {
        self.init(agents: agents, identity: identity, logger: logger, preview: preview, clock: clock,
                  dialer: NetworkDialer(identity: identity))
    }

    /// `dialer`: how links to the agents open (tests: agents in this process).
    init(agents: [AgentEndpoint], identity: DeviceIdentity, logger: Logger, preview: PreviewHub.Settings = PreviewHub.Settings(),
         clock: any TimeSource, dialer: any LinkDialer, forgetter: (any SpoolForgetting)? = nil) {
        self.identity = identity
        self.dialer = dialer
        self.forgetter = forgetter ?? SpoolForgetter(identity: identity)
        self.clock = clock
        self.logger = logger
        members = RigMembers(agents.map { Member(endpoint: $0, name: $0.host) })
        (events, input) = AsyncStream.makeStream(of: RigEvent.self)
        previews = PreviewHub(settings: preview, clock: clock)
        previews.onChange { [input] in input.yield(.previewDemand) }
    }

    // MARK: The API

    /// A snapshot now and after every change.
    public nonisolated func snapshots() -> AsyncStream<RigSnapshot> {
        let stream = snapshotSubscribers.add(bufferingNewest: 8)
        input.yield(.tick)
        return stream
    }

    /// The whole state now.
    public func snapshot() -> RigSnapshot {
        lastSnapshot ?? makeSnapshot(now: clock.now)
    }

    /// One-off lines: events and warnings, as a terminal prints them.
    public nonisolated func notices() -> AsyncStream<String> {
        noticeSubscribers.add(bufferingNewest: 256)
    }

    /// Checks and carries out a command; a refused one throws `RigError`, changing nothing.
    public nonisolated func perform(_ command: RigCommand) async throws {
        try await withCheckedThrowingContinuation { continuation in
            input.yield(.command(command, continuation))
        }
    }

    /// Runs the rig's event loop until `shutdown`.
    public func run() async {
        let ticker = Task { [input, clock] in
            while !Task.isCancelled {
                try? await clock.sleep(nanoseconds: 250_000_000)
                input.yield(.tick)
            }
        }
        defer { ticker.cancel() }
        for await event in events {
            handle(event)
            publish()
            if shuttingDown { break }
        }
        for member in members { member.reconnecting?.cancel() }
        noticeSubscribers.finish()
        snapshotSubscribers.finish()
    }

    /// Returns once the loop has handled every event given to it before this call (a test
    /// on simulated time moves the clock on, then waits here for the rig to catch up).
    func settled() async {
        await withCheckedContinuation { continuation in input.yield(.settled(continuation)) }
    }

    /// Opens a link to every agent and waits until each has answered Hello.
    public func connect(timeoutSeconds: Double = 10) async throws {
        for i in members.indices { try await openAgain(i) }
        try await withCheckedThrowingContinuation { continuation in
            connectWaiter = (clock.now + Int64(timeoutSeconds * 1e9), continuation)
            input.yield(.tick)
        }
    }

    /// Records one take with these settings and returns its files once they are final.
    public func record(_ plan: TakePlan) async throws -> TakeResult {
        try await withCheckedThrowingContinuation { continuation in
            takeWaiter = continuation
            input.yield(.command(.start(plan), Self.ignoring))
        }
    }

    /// Finishes a take whose coordinator was killed (`session.json` in `directory`).
    public func resume(sessionDirectory directory: String, record: SessionRecord, plan: TakePlan,
                       lock: SessionLock, leavingOut: Set<Int> = []) async throws -> TakeResult {
        let trackers = AgentTracker.resuming(record, endpoints: members.map(\.endpoint))
        let take = try Take(resuming: record, plan: plan, sessionDirectory: directory, agents: trackers,
                            members: members, rigIndices: Array(members.indices), lock: lock, logger: logger, notice: noticeSink(), clock: clock,
                            events: input)
        take.refileHeld()
        self.take = take
        for i in leavingOut.sorted() { take.feed(.leaveOut(agent: i, reason: "left out by the operator (--without)")) }
        return try await withCheckedThrowingContinuation { continuation in
            takeWaiter = continuation
            for i in members.indices where !leavingOut.contains(i) { Task { await self.openOrReconnect(i) } }
            advanceTake(now: clock.now)
        }
    }

    /// Ends the rig: Shutdown to the agents when asked (the demo's own agents), links closed.
    public nonisolated func shutdown(sendShutdown: Bool) {
        input.yield(.shutdown(sendShutdown: sendShutdown))
    }

    private static let ignoring: CheckedContinuation<Void, any Error>? = nil

    // MARK: The loop

    private func handle(_ event: RigEvent) {
        let now = clock.now
        switch event {
        case .event(let i, let generation, let delivery):
            guard generation == members[i].generation else { return }
            memberEvent(delivery.event, from: i, now: now)
            if let take, let t = take.rigIndices.firstIndex(of: i), !isFinalising(take) {
                do {
                    try take.handle(delivery.event, from: t, now: now)
                } catch let full as OutputDiskFull {
                    take.outputFailed(full, now: now)
                } catch {
                    take.warn("\(members[i].name): \(error)")
                    members[i].link?.close()
                }
            }
        case .closed(let i, let generation, let reason):
            guard generation == members[i].generation else { return }
            lose(i, reason: reason ?? "connection closed", now: now)
        case .reconnected(let i, let link):
            members[i].reconnecting = nil
            members[i].link = link
            members[i].generation = link.generation
            notify("reconnected to \(members[i].name)")
            link.start()
        case .tick:
            if let waiter = connectWaiter, now >= waiter.deadline {
                connectWaiter = nil
                let missing = members.filter { !$0.connected }.map { $0.linkState.notAnswered(address: "\($0.endpoint.host):\($0.endpoint.port)") }
                waiter.continuation.resume(throwing: CoordinatorError("timed out waiting for hello: " + missing.joined(separator: "; ")))
            }
            if let take, !isFinalising(take) { take.feed(.tick(now: now)) }
            expireCameraRequests(now: now)
        case .command(let command, let reply):
            do {
                try perform(command, now: now)
                reply?.resume()
            } catch {
                reply?.resume(throwing: error)
                if case .start = command { takeWaiter?.resume(throwing: error); takeWaiter = nil }
            }
        case .finalised(let result, let failure):
            guard let take else { return }
            take.result = result
            take.feed(.finalised(ok: result != nil, reason: failure))
        case .previewDemand:
            break  // answered below, as after every event
        case .settled(let waiter):
            waiter.resume()
        case .shutdown(let sendShutdown):
            shuttingDown = true
            var shutdown = Dualcam_V1_Shutdown()
            shutdown.reason = "session complete"
            for i in members.indices {
                failCameraRequests(of: i, reason: "the rig is shutting down")
                members[i].reconnecting?.cancel()
                if sendShutdown { try? members[i].link?.send(.shutdown(shutdown)) }
                members[i].link?.finish()
            }
        }
        advanceTake(now: now)
        askForPreviews()
    }

    /// Asks each connected agent for its preview while someone watches, and for nothing
    /// otherwise (§16); an agent whose viewers lost pictures is asked again, which gives
    /// them a key frame at once.
    private func askForPreviews() {
        let watched = previews.isWatched
        let keyframes = previews.takeKeyframeRequests()
        for i in members.indices where members[i].connected {
            guard let link = members[i].link,
                  members[i].previewAsked != watched || (watched && keyframes.contains(i)) else { continue }
            var request = Dualcam_V1_PreviewRequest()
            if watched {
                let s = previews.settings
                request.width = UInt32(s.width)
                request.height = UInt32(s.height)
                request.fps = UInt32(s.fps)
                request.bitrate = UInt32(s.bitrate)
            }
            do {
                try link.send(.previewRequest(request))
                members[i].previewAsked = watched
            } catch {
                logger.debug("preview request to \(members[i].name) not sent: \(error)")
            }
        }
    }

    private func isFinalising(_ take: Take) -> Bool {
        if case .finalising = take.machine.phase { return true }
        return false
    }

    /// Reports a take that ended.
    private func advanceTake(now: Int64) {
        guard let take, take.machine.phase.isOver else { return }
        let status = take.status(now: now)
        lastTake = status
        self.take = nil
        if let next = liveAfter {
            liveAfter = nil
            do {
                try perform(.goLive(next), now: now)
            } catch {
                notify("the recording stopped, but going on live failed: \(error); Go live streams again")
            }
        }
        guard let waiter = takeWaiter else { return }
        takeWaiter = nil
        if let result = take.result {
            waiter.resume(returning: result)
        } else if case .cancelled(let reason) = take.machine.phase {
            waiter.resume(throwing: TakeCancelled(reason: reason, sessionID: take.sessionID,
                                                  folderKept: FileManager.default.fileExists(atPath: take.sessionDirectory)))
        } else {
            waiter.resume(throwing: CoordinatorError(status.reason.map { "\(status.phase.words): \($0)" } ?? status.phase.words))
        }
    }

    /// What is known of agents that are not connected, and what to do about it.
    private func missingAdvice(_ indices: [Int]) -> String {
        guard !indices.isEmpty else { return "no such agent was found; check its name, and that it runs and is paired" }
        return indices.map { i in
            "\(members[i].name) at \(members[i].endpoint.host):\(members[i].endpoint.port) is not connected ("
                + (members[i].linkState.lastReason ?? "it did not answer") + ")"
        }.joined(separator: "; ") + "; start dualcam-agent there, or check the network"
    }

    private func perform(_ command: RigCommand, now: Int64) throws {
        switch command {
        case .start(let plan):
            // Record while only live keeps that take (before it finalises: `finish` reads
            // the plan off the loop from then on).
            if let take, take.plan.liveOnly, !take.machine.phase.isOver, !isFinalising(take) {
                take.keepFiles(now: now)
                return
            }
            guard take == nil else { throw RigError("a take is under way (\(take!.machine.phase.name)); stop it first") }
            guard !plan.liveOnly || !plan.streams.isEmpty else { throw RigError(TakePlan.noStreams) }
            // A node whose camera is missing records nothing: it is left out here, said in
            // the pre-flight, rather than found out when its Prepare fails.
            let chosen = members.indices.filter { members[$0].recordable }
            let notReady = members.indices.compactMap { members[$0].connected ? members[$0].notReadyLine : nil }
            guard !chosen.isEmpty else {
                if !notReady.isEmpty { throw RigError("no camera is ready to record: " + notReady.joined(separator: "; ")) }
                throw RigError("no agent is connected; start the agents, or check the network")
            }
            do {
                let roles = plan.roles(overriding: chosen.map { members[$0].role })
                try plan.mix.check(cameraNames: SessionNaming.cameraNames(roles: roles))
            } catch {
                throw RigError("\(error)")
            }
            var trackers: [AgentTracker] = []
            for i in chosen {
                var t = AgentTracker(endpoint: members[i].endpoint)
                t.name = members[i].name
                t.role = members[i].role
                trackers.append(t)
            }
            let absent = RequiredAgents.missing(plan.required, connected: chosen.map { (members[$0].name, members[$0].role.name) })
            guard absent.isEmpty else {
                let unready = members.indices.filter { members[$0].connected && !members[$0].recordable }
                throw RigError("not starting without \(absent.joined(separator: ", ")) (required): "
                    + (unready.isEmpty ? "" : unready.compactMap { members[$0].notReadyLine }.joined(separator: "; ") + "; ")
                    + missingAdvice(members.indices.filter { !members[$0].connected }))
            }
            let missing = members.indices.filter { !members[$0].connected }.map { members[$0].name }
            let take = Take(plan: plan, agents: trackers, members: members, rigIndices: chosen, logger: logger, notice: noticeSink(), clock: clock,
                            events: input)
            take.notReady = notReady
            take.forgetter = forgetter
            self.take = take
            lastTake = nil
            for absent in plan.absentAgents { take.warn("recording without " + absent) }
            for line in notReady { take.warn("recording without " + line) }
            if !missing.isEmpty {
                take.warn("recording without \(missing.joined(separator: ", ")): "
                    + missingAdvice(members.indices.filter { !members[$0].connected })
                    + "; `--require NAME` refuses to record without an agent")
            }
            for (t, i) in chosen.enumerated() {
                let idle = members[i].link?.state == .established(.idle)
                take.feed(.idle(agent: t, idle, now: now))
                if let c = members[i].clock {
                    take.agents[t].clock = c
                    take.feed(.clock(agent: t, locked: c.state == .clockLocked, boundNanoseconds: c.errorBoundNs, now: now))
                }
                take.feed(.disk(agent: t, freeBytes: Int64(clamping: members[i].freeDiskBytes)))
            }
            notify("syncing clocks (threshold \(Take.settings(plan).clockThreshold / 1000) µs)")
            take.feed(.start(now: now))
        case .goLive(let plan):
            if take != nil { return try perform(.live(true), now: now) }
            var live = plan
            live.liveOnly = true
            live.goesLive = true
            try perform(.start(live), now: now)
            notify("live without recording: nothing is kept unless you press Record; End live ends it")
        case .stop(let reason):
            guard let take else { throw RigError("nothing is recording") }
            take.feed(.stop(now: now, reason: reason))
        case .stopRecording(let reason):
            guard let take, !take.machine.phase.isOver, !isFinalising(take), liveAfter == nil else { throw RigError("nothing is recording") }
            guard !take.plan.liveOnly else { throw RigError("this take is live without recording: End live ends it") }
            guard take.plan.goesLive, !take.plan.streams.isEmpty else { throw RigError("the take is not live: Stop ends it") }
            // `start` and `resume` wait for their one take and then end the rig.
            guard takeWaiter == nil else {
                throw RigError("`start` records one take and exits, so it cannot stay live after it: Stop ends both; `serve` can")
            }
            var next = take.plan
            next.layout = take.layout
            next.filter = take.filter.filter
            next.mix = take.mix
            next.durationSeconds = nil
            next.countdownSeconds = 0
            next.measured = take.measured
            liveAfter = next
            take.feed(.stop(now: now, reason: reason))
            notify("recording stops; the programme goes on live without recording once this take's files are final "
                + "(the stream pauses a few seconds and connects again)")
        case .layout, .nextLayout, .swap, .nextPlacement, .filter, .mix, .director, .live:
            guard let take, !isFinalising(take) else { throw RigError("no take is under way; layouts change while recording") }
            try take.apply(command, now: now)
        }
    }

    // MARK: Agents

    private func memberEvent(_ event: CoordinatorEvent, from i: Int, now: Int64) {
        switch event {
        case .connected(let ack):
            members[i].linkState.connected()
            members[i].previewAsked = false
            members[i].name = ack.nodeName
            members[i].role = ack.role
            members[i].protocolMinor = ack.version.minor
            members[i].freeDiskBytes = ack.capabilities.freeDiskBytes
            members[i].sourceProblem = Member.problem(ack.capabilities.sourceProblem)
            if let problem = members[i].sourceProblem { notify("\(ack.nodeName) is NOT READY: \(problem)") }
            let caps = ack.capabilities
            members[i].limits = CameraLimits(maxWidth: Int(caps.maxWidth), maxHeight: Int(caps.maxHeight),
                                             maxFramesPerSecond: Int(caps.maxFps))
            if let waiter = connectWaiter, members.allSatisfy(\.connected) {
                connectWaiter = nil
                waiter.continuation.resume()
            }
        case .clockStatus(let status):
            members[i].clock = status
            logger.debug("clock \(i): state \(status.state) offset \(Int(status.offsetNs)) ns rate \(status.ratePpm) ppm bound \(status.errorBoundNs) ns rtt \(status.roundTripNs) ns")
        case .sourceStatus(let status):
            let problem = Member.problem(status.problem)
            guard problem != members[i].sourceProblem else { break }
            // Told as it happens, not at the next start.
            if let problem {
                notify("\(members[i].name) is NOT READY: \(problem)")
            } else {
                notify("\(members[i].name) is ready: its camera is back")
            }
            members[i].sourceProblem = problem
        case .telemetry(let telemetry):
            members[i].telemetry = telemetry
            members[i].telemetryAt = now
            if telemetry.freeDiskBytes > 0 { members[i].freeDiskBytes = telemetry.freeDiskBytes }
        case .cameraState(let state):
            answerCamera(state, from: i)
        case .peerError(let error) where take == nil:
            notify("\(members[i].name): \(error.message)")
        default:
            break
        }
    }

    private func lose(_ i: Int, reason: String, now: Int64) {
        failCameraRequests(of: i, reason: reason)
        members[i].link = nil
        members[i].clock = nil
        let context: LinkMachine.Context
        if connectWaiter != nil {
            context = .waitingForFirstAnswer
        } else if let take, take.rigIndices.contains(i), !isFinalising(take) {
            context = .inTake
        } else {
            context = .between
        }
        let actions = members[i].linkState.closed(name: members[i].name, reason: reason, unansweredClose: TLSTransport.isUnansweredClose(reason),
                                                  context: context, shuttingDown: shuttingDown, now: now)
        for action in actions {
            switch action {
            case .notify(let line):
                notify(line)
            case .failStart(let sentence):
                guard let waiter = connectWaiter else { break }
                connectWaiter = nil
                waiter.continuation.resume(throwing: CoordinatorError(sentence))
            case .tellTake(let why):
                if let take, let t = take.rigIndices.firstIndex(of: i) { take.lost(t, reason: why, now: now) }
            case .reconnect:
                reconnect(i)
            }
        }
    }

    private func open(_ i: Int) async throws {
        members[i].generation += 1
        let link = try await dialer.open(index: i, generation: members[i].generation, endpoint: members[i].endpoint,
                                         events: input, previews: previews, clock: clock)
        members[i].link = link
        link.start()
    }

    /// The first connection to an agent, tried again while the agent closes it unjudged
    /// during the handshake: an agent flooded with half-open connections from this
    /// laptop's address closes the oldest strangers, ours among them, and `start` failed.
    private func openAgain(_ i: Int) async throws {
        while true {
            do {
                return try await open(i)
            } catch {
                guard let pause = members[i].linkState.firstOpenFailed(
                    reason: "\(error)", unansweredClose: TLSTransport.isUnansweredClose("\(error)")) else { throw error }
                notify("\(members[i].name): \(error); trying again")
                try await clock.sleep(nanoseconds: pause)
            }
        }
    }

    private func openOrReconnect(_ i: Int) async {
        do {
            try await open(i)
        } catch {
            notify("\(members[i].name) does not answer yet (\(error)); trying again every few seconds")
            reconnect(i)
        }
    }

    /// Tries where the agent was, soon and then every second or two (a refused
    /// connection costs nothing), and at once wherever mDNS announces it (a restarted
    /// agent announces itself as it comes up, maybe on another port): a 2 s outage used
    /// to cost 9 s of recording, the first try waiting 2 s and each mDNS look 2 s more.
    private func reconnect(_ i: Int) {
        members[i].reconnecting?.cancel()
        let endpoint = members[i].endpoint
        let dialer = self.dialer
        let events = input
        let previews = self.previews
        let clock = self.clock
        let first = members[i].generation + 1
        members[i].reconnecting = Task {
            var generation = first
            func attempt(_ candidate: AgentEndpoint) async -> Bool {
                defer { generation += 1 }
                guard let link = try? await dialer.open(index: i, generation: generation, endpoint: candidate,
                                                        events: events, previews: previews, clock: clock)
                else { return false }
                events.yield(.reconnected(agent: i, link))
                return true
            }
            let announced = NIOLockedValueBox<AgentEndpoint?>(nil)
            let watcher = Task { await dialer.watchAnnouncements(of: endpoint.deviceID, into: announced) }
            defer { watcher.cancel() }
            var schedule = ReconnectSchedule()
            while !Task.isCancelled {
                try? await clock.sleep(nanoseconds: ReconnectSchedule.tickNanoseconds)
                if let found = announced.withLockedValue({ value in defer { value = nil }; return value }) {
                    if await attempt(found) { return }
                    continue
                }
                guard schedule.due() else { continue }
                if await attempt(endpoint) { return }
            }
        }
    }

    // MARK: Screens

    private nonisolated func noticeSink() -> @Sendable (String) -> Void {
        { [noticeSubscribers] text in
            noticeSubscribers.yield(text)
        }
    }

    private func notify(_ text: String) { noticeSink()(text) }

    private func publish() {
        let snapshot = makeSnapshot(now: clock.now)
        guard snapshot != lastSnapshot else { return }
        lastSnapshot = snapshot
        snapshotSubscribers.yield(snapshot)
    }

    private func makeSnapshot(now: Int64) -> RigSnapshot {
        var snapshot = RigSnapshot()
        snapshot.take = take?.status(now: now) ?? lastTake
        let stop = take?.stopShared
        for (i, m) in members.enumerated() {
            let t = take?.rigIndices.firstIndex(of: i)
            let tracker = t.flatMap { take?.agents[$0] }
            let inTake = t.flatMap { take?.machine.agents[$0] }
            var status = AgentStatus(
                name: m.name, role: m.role.name, cameraName: tracker?.cameraName ?? "", deviceID: "\(m.endpoint.deviceID)",
                address: "\(m.endpoint.host):\(m.endpoint.port)",
                connection: m.connected ? .connected : m.linkState.lostSince.map { .lost(sinceSeconds: Double((now - $0) / 100_000_000) / 10) } ?? .connecting,
                clock: m.clock.map(Self.clock), telemetry: nil, uploadLagSeconds: nil,
                complete: inTake?.complete ?? false, givenUp: inTake?.gone ?? false)
            status.sourceProblem = m.connected ? m.sourceProblem : nil
            if let tel = m.telemetry, let tracker, tracker.finished == nil {
                status.telemetry = Self.telemetry(tel)
                if let encoder = tracker.encoderStatus {
                    status.telemetry?.preset = WireIdentifier.printable(encoder.preset)
                    status.telemetry?.encoderShortfall = encoder.shortfall.isEmpty ? nil : encoder.shortfall
                } else if let preset = tracker.encoder?.preset {
                    status.telemetry?.preset = preset
                }
            } else if let tel = m.telemetry, tracker == nil || tracker?.finished != nil, m.connected,
                      now - m.telemetryAt < 3_000_000_000 {
                // Between takes: the camera as the preview sees it (no sound: no microphone is open).
                status.telemetry = Self.telemetry(tel)
            }
            if let tracker, let t0 = take?.t0, tracker.finished == nil || !tracker.complete {
                let live = min(now, stop ?? now) - t0
                status.uploadLagSeconds = Double(max(0, live - tracker.receivedUpToNanoseconds) / 100_000_000) / 10
            }
            snapshot.agents.append(status)
        }
        return snapshot
    }

    static func clock(_ c: Dualcam_V1_ClockStatus) -> ClockStatus {
        ClockStatus(locked: c.state == .clockLocked, errorBoundMicroseconds: c.errorBoundNs / 1000,
                    offsetMilliseconds: c.offsetNs / 1e6, ratePPM: c.ratePpm, roundTripMicroseconds: c.roundTripNs / 1000)
    }

    static func telemetry(_ t: Dualcam_V1_Telemetry) -> AgentTelemetry {
        AgentTelemetry(captureFPS: (t.captureFps * 10).rounded() / 10, framesDropped: t.framesDropped,
                       temperatureC: t.cpuTemperatureC.isNaN ? nil : t.cpuTemperatureC.rounded(),
                       throttled: t.throttleFlags & 0xF != 0, freeDiskBytes: t.freeDiskBytes / 100_000_000 * 100_000_000,
                       sound: t.audio ? SoundLevels(peakDBFS: t.audioPeakDbfs, rmsDBFS: t.audioRmsDbfs) : nil)
    }
}
