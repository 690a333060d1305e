/// One take (a recording session) across N agents, without I/O: the rig feeds it what
/// happens (the operator, the agents' connections, their clocks, time) and performs the
/// actions it returns. Every timing rule of a take lives here, so it is tested with
/// simulated time: when the start may be scheduled, where T0 falls, when a lost agent is
/// given up on, when the files are finished.
///
/// idle → syncing → preparing → counting down → recording → stopping → finalising →
/// done, or failed / cancelled from any phase before finalising.
public struct TakeMachine: Sendable {
    public struct Settings: Sendable, Equatable {
        public var rate: FrameRate
        /// nil: until the operator stops.
        public var durationNanoseconds: Int64?
        public var countdownSeconds: Int = 0
        /// T0 lies at least this far after the last Ready (the StartAt must reach every agent).
        public var startLeadNanoseconds: Int64 = 1_500_000_000
        /// The start waits until every agent's clock error bound is under this; nil:
        /// `defaultClockThreshold(for:)` of the rate.
        public var clockThresholdNanoseconds: Int64?
        public var clockWaitNanoseconds: Int64 = 30_000_000_000
        public var readyTimeoutNanoseconds: Int64 = 30_000_000_000
        /// How long after the stop a lost agent is waited for.
        public var reconnectGraceNanoseconds: Int64 = 30_000_000_000
        /// Free disk each agent needs for the take (nil: not checked here).
        public var requiredDiskBytes: Int64?
        /// A restarted agent records again only while the stop is further away than this.
        public var rejoinMarginNanoseconds: Int64 = 5_000_000_000

        public init(rate: FrameRate, durationNanoseconds: Int64?) {
            self.rate = rate
            self.durationNanoseconds = durationNanoseconds
        }

        public var clockThreshold: Int64 { clockThresholdNanoseconds ?? Self.defaultClockThreshold(for: rate) }

        /// A twentieth of a frame: two cameras each within it are at most a tenth of a
        /// frame apart, which no viewer sees, and a path of several milliseconds of jitter
        /// still syncs under it (1.7 ms at 30 fps, 0.8 ms at 60).
        public static func defaultClockThreshold(for rate: FrameRate) -> Int64 {
            rate.periodNanoseconds / 20
        }
    }

    public enum Phase: Sendable, Equatable {
        case idle
        case syncing(deadline: Int64)
        case preparing(deadline: Int64)
        case countingDown(t0: Int64, stop: Int64?)
        case recording(t0: Int64, stop: Int64?)
        case stopping(t0: Int64, stop: Int64)
        case finalising(t0: Int64, stop: Int64)
        case done
        case cancelled(String)
        case failed(String)

        /// As a text screen writes it (`TakePhase.words`).
        public var name: String { kind.words }

        /// A take in this phase has ended: nothing more will happen to it.
        public var isOver: Bool { kind.isOver }
    }

    /// What the machine knows of one agent of the take.
    public struct Agent: Sendable, Equatable {
        public var name: String
        public var connected = true
        /// Its connection is in no session phase, so a Prepare may go out.
        public var idle = true
        public var clockLocked = false
        public var clockBoundNanoseconds: Int64 = .max
        public var freeDiskBytes: Int64?
        /// Left out of the take (it refused to prepare); the others record.
        public var excluded = false
        public var prepareSent = false
        public var ready = false
        public var started = false
        /// A restarted agent asked to prepare again, to record the rest of the take.
        public var rejoining = false
        /// It refused the Prepare as too slow, and the take is prepared again at a mode
        /// every node can encode (`refit`) once every agent has answered.
        public var refitting = false
        public var finished = false
        /// Every segment it cut is held.
        public var complete = false
        public var lostSince: Int64?
        /// Given up on: the take is finished without its missing segments.
        public var gone = false

        public init(name: String) { self.name = name }

        public var inTake: Bool { !excluded }
        var settled: Bool { excluded || complete || gone }
    }

    public enum Input: Sendable, Equatable {
        case start(now: Int64)
        case stop(now: Int64, reason: String)
        /// The agent's link is up again after a loss (handshake done). `recordingThisTake`:
        /// the agent says it still records this take (it was not restarted).
        case connected(agent: Int, recordingThisTake: Bool, now: Int64)
        case lost(agent: Int, now: Int64)
        /// Its connection went back to no session phase (or left it).
        case idle(agent: Int, Bool, now: Int64)
        case clock(agent: Int, locked: Bool, boundNanoseconds: Int64, now: Int64)
        case disk(agent: Int, freeBytes: Int64)
        case ready(agent: Int, now: Int64)
        case prepareFailed(agent: Int, reason: String, now: Int64)
        /// The agent refused the Prepare as too slow, and the rig lowers the take to a mode
        /// (at `rate`) every node can encode: everyone prepares again within this start.
        case refit(agent: Int, rate: FrameRate, now: Int64)
        /// The take cannot be recorded as asked (the agent cannot encode the size and
        /// rate the operator chose): it fails before anything is recorded.
        case refused(agent: Int, reason: String, now: Int64)
        case finished(agent: Int)
        case complete(agent: Int)
        /// The agent holds nothing more of the take.
        case unavailable(agent: Int)
        case finalised(ok: Bool, reason: String?)
        /// The operator finishes the take without this agent (`resume --without`): what
        /// is held of it is kept, nothing more is asked of it.
        case leaveOut(agent: Int, reason: String)
        /// The coordinator can no longer write the take's files (its disk is full). Once
        /// recording began, the agents are not stopped: they record on and spool
        /// everything, and `resume` collects it once there is room.
        case outputFailed(reason: String, now: Int64)
        case tick(now: Int64)
    }

    public enum Action: Sendable, Equatable {
        /// Make the take's folder and send Prepare to these agents.
        case prepare([Int])
        case startAt([Int], t0: Int64, stop: Int64?)
        /// Send Stop (frames at or after `at` are not recorded).
        case stop([Int], at: Int64)
        /// Fetch what the agent spooled (Resume).
        case resume(Int)
        case giveUp(Int, reason: String)
        /// Every agent is complete or given up on: close the files.
        case finalise
        /// Remove what a take that never recorded left behind.
        case discard
        case warn(String)
    }

    /// Its rate changes only with a `refit`, before anything is scheduled.
    public private(set) var settings: Settings
    public private(set) var phase: Phase = .idle
    /// Why a take was stopped before T0 (it ends cancelled, not finalised).
    private var cancelReason: String?
    public private(set) var agents: [Agent]

    public init(settings: Settings, agents: [String]) {
        self.settings = settings
        self.agents = agents.map(Agent.init(name:))
    }

    /// A take that recorded without this process (its coordinator was killed): it goes on
    /// from T0, every agent lost until it reconnects, and is finished as any other.
    public init(settings: Settings, agents: [String], resumingAt t0: Int64, stop: Int64?, now: Int64) {
        self.settings = settings
        self.agents = agents.map { name in
            var a = Agent(name: name)
            (a.connected, a.prepareSent, a.ready, a.started, a.lostSince) = (false, true, true, true, now)
            return a
        }
        phase = stop.map { .stopping(t0: t0, stop: $0) } ?? .recording(t0: t0, stop: nil)
        if let stop, stop <= t0 { cancelReason = "cancelled during the countdown" }
    }

    public var t0: Int64? {
        switch phase {
        case .countingDown(let t0, _), .recording(let t0, _), .stopping(let t0, _), .finalising(let t0, _): t0
        default: nil
        }
    }

    public var stopInstant: Int64? {
        switch phase {
        case .countingDown(_, let stop), .recording(_, let stop): stop
        case .stopping(_, let stop), .finalising(_, let stop): stop
        default: nil
        }
    }

    /// The earliest instant at which `tick` has something to decide.
    public var nextDeadline: Int64? {
        switch phase {
        case .syncing(let deadline), .preparing(let deadline): deadline
        case .countingDown(let t0, _): t0
        case .recording(_, let stop): stop
        case .stopping(_, let stop):
            agents.compactMap { a in a.lostSince.map { max(stop, $0) + settings.reconnectGraceNanoseconds } }.min()
        default: nil
        }
    }

    public mutating func handle(_ input: Input) -> [Action] {
        guard !phase.isOver else { return [] }
        switch input {
        case .start(let now): return start(now: now)
        case .stop(let now, let reason): return stop(now: now, reason: reason)
        case .connected(let i, let recording, let now): return connected(i, recordingThisTake: recording, now: now)
        case .lost(let i, let now): return lost(i, now: now)
        case .idle(let i, let idle, let now):
            agents[i].idle = idle
            return advance(now: now)
        case .clock(let i, let locked, let bound, let now):
            agents[i].clockLocked = locked
            agents[i].clockBoundNanoseconds = bound
            return advance(now: now) + rejoinIfReady(i)
        case .disk(let i, let free):
            agents[i].freeDiskBytes = free
            return []
        case .ready(let i, let now): return ready(i, now: now)
        case .prepareFailed(let i, let reason, let now): return prepareFailed(i, reason: reason, now: now)
        case .refit(let i, let rate, let now): return refit(i, rate: rate, now: now)
        case .refused(let i, let reason, let now):
            switch phase {
            case .syncing, .preparing:
                // Its refusal put its connection back in no session: no Stop for it.
                agents[i].excluded = true
                return fail(reason, now: now)
            default: return []
            }
        case .finished(let i):
            agents[i].finished = true
            return []
        case .complete(let i):
            agents[i].complete = true
            return finishIfSettled()
        case .unavailable(let i):
            // While recording too: an agent restarted near the stop is only asked for its
            // spool; one that holds nothing was ignored then, and the take waited for it
            // forever after the stop (an agent killed in its first segment).
            switch phase {
            case .stopping, .recording: break
            default: return []
            }
            guard !agents[i].complete, !agents[i].gone, !agents[i].rejoining else { return [] }
            agents[i].gone = true
            return [.giveUp(i, reason: "it holds nothing more of this take")] + finishIfSettled()
        case .outputFailed(let reason, let now):
            switch phase {
            case .recording, .stopping, .finalising:
                phase = .failed(reason)
                return []
            default:
                return stop(now: now, reason: reason)
            }
        case .finalised(let ok, let reason):
            guard case .finalising = phase else { return [] }
            phase = ok ? .done : .failed(reason ?? "the files could not be finished")
            return []
        case .tick(let now): return tick(now: now)
        case .leaveOut(let i, let reason):
            guard !agents[i].settled else { return [] }
            agents[i].gone = true
            return [.giveUp(i, reason: reason)] + finishIfSettled()
        }
    }

    // MARK: Before the recording

    private mutating func start(now: Int64) -> [Action] {
        guard phase == .idle else { return [] }
        guard agents.contains(where: \.connected) else {
            phase = .failed("no agent is connected")
            return []
        }
        if let needed = settings.requiredDiskBytes {
            let short = agents.filter { a in a.freeDiskBytes.map { $0 < needed } ?? false }
            if !short.isEmpty {
                let names = short.map { "\($0.name) (\(($0.freeDiskBytes ?? 0) / 1_000_000) MB free)" }.joined(separator: ", ")
                phase = .failed("not enough disk for this take on \(names); it needs \(needed / 1_000_000) MB each")
                return []
            }
        }
        for i in agents.indices where !agents[i].connected {
            agents[i].excluded = true
        }
        phase = .syncing(deadline: now + settings.clockWaitNanoseconds)
        let missing = agents.filter(\.excluded).map(\.name)
        return (missing.isEmpty ? [] : [.warn("recording without \(missing.joined(separator: ", ")): not connected")])
            + advance(now: now)
    }

    private func clockGood(_ a: Agent) -> Bool {
        a.clockLocked && a.clockBoundNanoseconds < settings.clockThreshold
    }

    /// Moves on once every clock of the take is locked under the threshold and every
    /// connection is free for a new session: Prepare to all.
    private mutating func advance(now: Int64) -> [Action] {
        guard case .syncing = phase else { return [] }
        let members = agents.indices.filter { agents[$0].inTake }
        guard members.allSatisfy({ agents[$0].connected && agents[$0].idle && clockGood(agents[$0]) }) else { return [] }
        for i in members { agents[i].prepareSent = true }
        phase = .preparing(deadline: now + settings.readyTimeoutNanoseconds)
        return [.prepare(members)]
    }

    private mutating func ready(_ i: Int, now: Int64) -> [Action] {
        agents[i].ready = true
        if agents[i].rejoining { return rejoinIfReady(i) }
        return startIfAllReady(now: now) + refitIfAnswered(now: now)
    }

    /// Agent `i` refused as too slow and the take goes to a mode at `rate` that every node
    /// can encode. Nothing is scheduled before every agent has answered its Prepare (one
    /// opening its camera cannot be stopped in the middle); then the Ready ones are
    /// stopped (a Prepare goes only to an idle connection), and once every connection is
    /// idle again, Prepare goes to all with the new settings.
    private mutating func refit(_ i: Int, rate: FrameRate, now: Int64) -> [Action] {
        guard case .preparing = phase, agents[i].inTake else { return [] }
        settings.rate = rate
        agents[i].refitting = true
        agents[i].ready = false
        // Its refusal put its connection back in no session.
        agents[i].idle = true
        return refitIfAnswered(now: now)
    }

    private mutating func refitIfAnswered(now: Int64) -> [Action] {
        guard case .preparing = phase else { return [] }
        let members = agents.indices.filter { agents[$0].inTake }
        guard members.contains(where: { agents[$0].refitting }),
              members.allSatisfy({ agents[$0].ready || agents[$0].refitting }) else { return [] }
        let prepared = members.filter { agents[$0].ready }
        for m in members {
            (agents[m].ready, agents[m].prepareSent, agents[m].refitting) = (false, false, false)
        }
        for m in prepared { agents[m].idle = false }
        phase = .syncing(deadline: now + settings.clockWaitNanoseconds)
        return (prepared.isEmpty ? [] : [.stop(prepared, at: now)]) + advance(now: now)
    }

    /// Every agent of the take is Ready: T0 is chosen and StartAt goes out.
    private mutating func startIfAllReady(now: Int64) -> [Action] {
        guard case .preparing = phase else { return [] }
        let members = agents.indices.filter { agents[$0].inTake }
        guard members.allSatisfy({ agents[$0].ready }) else { return [] }
        let lead = max(settings.startLeadNanoseconds, Int64(settings.countdownSeconds) * 1_000_000_000)
        // T0 sits on the shared frame grid, so genlocked cameras stamp frames at exactly
        // 0, P, 2P… and the composite's ticks meet them with no phase error.
        let t0 = settings.rate.instant(ofFrame: settings.rate.firstFrame(atOrAfter: now + lead))
        let stop = settings.durationNanoseconds.map { t0 + $0 }
        for m in members { agents[m].started = true }
        phase = .countingDown(t0: t0, stop: stop)
        return [.startAt(members, t0: t0, stop: stop)]
    }

    private mutating func prepareFailed(_ i: Int, reason: String, now: Int64) -> [Action] {
        if agents[i].rejoining {
            agents[i].rejoining = false
            return [.warn("\(agents[i].name) cannot record again: \(reason)"), .resume(i)]
        }
        guard case .preparing = phase else { return [] }
        agents[i].excluded = true
        guard agents.contains(where: \.inTake) else { return fail("no agent could prepare: \(reason)", now: now) }
        return [.warn("recording without \(agents[i].name): \(reason)")] + startIfAllReady(now: now) + refitIfAnswered(now: now)
    }

    /// Ends a take that has not recorded: Stop to every agent that was prepared.
    private mutating func fail(_ reason: String, now: Int64) -> [Action] {
        let prepared = agents.indices.filter { agents[$0].prepareSent && agents[$0].connected && !agents[$0].excluded }
        phase = .failed(reason)
        return (prepared.isEmpty ? [] : [.stop(prepared, at: now)]) + [.discard]
    }

    // MARK: The operator's stop

    private mutating func stop(now: Int64, reason: String) -> [Action] {
        switch phase {
        case .idle:
            phase = .cancelled(reason)
            return []
        case .syncing, .preparing:
            let prepared = agents.indices.filter { agents[$0].prepareSent && agents[$0].connected && !agents[$0].excluded }
            phase = .cancelled(reason)
            return (prepared.isEmpty ? [] : [.stop(prepared, at: now)]) + [.discard]
        case .countingDown(let t0, _):
            // Nothing is recorded before T0: a Stop at T0 cancels the take on every agent.
            // The take ends once each agent has said it stopped (or was given up on, and
            // then `resume` stops it): an agent that never heard the Stop would record on.
            cancelReason = reason
            let started = agents.indices.filter { agents[$0].started && agents[$0].connected }
            phase = .stopping(t0: t0, stop: t0)
            return [.stop(started, at: t0)] + finishIfSettled()
        case .recording(let t0, let planned):
            // A moment from now, on a frame boundary: every agent gets the Stop in time.
            var instant = settings.rate.instant(ofFrame: settings.rate.firstFrame(atOrAfter: now + 200_000_000))
            if let planned { instant = min(instant, planned) }
            phase = .stopping(t0: t0, stop: instant)
            let reachable = agents.indices.filter { agents[$0].started && agents[$0].connected && !agents[$0].gone }
            return [.stop(reachable, at: instant)] + finishIfSettled()
        default:
            return []
        }
    }

    // MARK: Agents lost and back

    // Reconnecting is the link's business, not the take's: the rig reconnects every lost
    // agent, in a take or not (`ReconnectSchedule`), and the take hears `connected`.

    private mutating func lost(_ i: Int, now: Int64) -> [Action] {
        guard agents[i].connected else { return [] }
        agents[i].connected = false
        agents[i].idle = true
        agents[i].lostSince = now
        // Its clock is judged afresh on the next connection (a restarted agent starts over).
        agents[i].clockLocked = false
        agents[i].clockBoundNanoseconds = .max
        switch phase {
        case .syncing:
            return []  // waited for until the clock deadline
        case .preparing:
            // Its prepared source went with the connection; it prepares again when back.
            agents[i].ready = false
            return []
        case .countingDown, .recording, .stopping:
            guard !agents[i].excluded, !agents[i].complete else { return [] }
            return [.warn("lost \(agents[i].name); it records on, and its segments fill in when it is back")]
        default:
            return []
        }
    }

    private mutating func connected(_ i: Int, recordingThisTake: Bool, now: Int64) -> [Action] {
        agents[i].connected = true
        agents[i].lostSince = nil
        switch phase {
        case .syncing:
            return advance(now: now)
        case .preparing:
            guard agents[i].inTake else { return [] }
            agents[i].prepareSent = true
            return [.prepare([i])]
        case .countingDown, .recording, .stopping:
            guard agents[i].inTake, !agents[i].complete, !agents[i].gone else { return [] }
            if !recordingThisTake, !agents[i].finished, let stop = stopInstant ?? Optional(Int64.max),
               now < stop - settings.rejoinMarginNanoseconds {
                // Restarted: it records the rest of the take once ready and locked.
                agents[i].rejoining = true
                agents[i].ready = false
                return [.warn("\(agents[i].name) was restarted; it rejoins the recording once its clock bound is under the threshold"),
                        .prepare([i])]
            }
            var actions: [Action] = [.resume(i)]
            if case .stopping(_, let stop) = phase { actions.append(.stop([i], at: stop)) }
            return actions
        default:
            return []
        }
    }

    /// A restarted agent joins a take under way on its clock's hard bound alone: waiting
    /// for "locked" (3 s of exchanges for the rate to settle) cost 3 s of its pictures,
    /// while the bound, which covers the rate's uncertainty too, is under the take's
    /// threshold within a fraction of a second on a LAN. The frames it records are mapped
    /// with estimates that keep improving as it records.
    private mutating func rejoinIfReady(_ i: Int) -> [Action] {
        guard agents[i].rejoining, agents[i].ready, agents[i].clockBoundNanoseconds < settings.clockThreshold, let t0 else { return [] }
        agents[i].rejoining = false
        return [.startAt([i], t0: t0, stop: stopInstant)]
    }

    // MARK: Time

    private mutating func tick(now: Int64) -> [Action] {
        switch phase {
        case .syncing(let deadline) where now >= deadline:
            let late = agents.filter { $0.inTake && !clockGood($0) }.map(\.name)
            return fail("clocks not locked under \(settings.clockThreshold / 1000) µs in time: \(late.joined(separator: ", "))", now: now)
        case .preparing(let deadline) where now >= deadline:
            let late = agents.filter { $0.inTake && !$0.ready && !$0.refitting }.map(\.name)
            return fail("not ready in time: \(late.joined(separator: ", "))", now: now)
        case .countingDown(let t0, let stop) where now >= t0:
            phase = .recording(t0: t0, stop: stop)
            return tick(now: now)
        case .recording(let t0, let stop?) where now >= stop:
            phase = .stopping(t0: t0, stop: stop)
            return tick(now: now)
        case .stopping(_, let stop):
            var actions: [Action] = []
            for i in agents.indices where agents[i].rejoining && now > stop - 1_000_000_000 {
                // Too late to record again: fetch what it spooled.
                agents[i].rejoining = false
                actions.append(.resume(i))
            }
            let grace = settings.reconnectGraceNanoseconds
            for i in agents.indices where !agents[i].settled {
                guard let since = agents[i].lostSince, now >= stop + grace, now - since >= grace else { continue }
                agents[i].gone = true
                actions.append(.giveUp(i, reason: "not back \(grace / 1_000_000_000) s after the stop"))
            }
            return actions + finishIfSettled()
        default:
            return []
        }
    }

    private mutating func finishIfSettled() -> [Action] {
        guard case .stopping(let t0, let stop) = phase, agents.allSatisfy(\.settled) else { return [] }
        guard stop > t0 else { return endCancelled() }
        phase = .finalising(t0: t0, stop: stop)
        return [.finalise]
    }

    /// A take stopped at T0 recorded nothing: its folder goes, unless an agent never
    /// confirmed the stop; then the folder (with its stop at T0) is what lets `resume`
    /// reach that agent and stop it.
    private mutating func endCancelled() -> [Action] {
        let reason = cancelReason ?? "stopped before T0"
        let unconfirmed = agents.filter { $0.started && $0.gone && !$0.complete }.map(\.name)
        guard unconfirmed.isEmpty else {
            phase = .cancelled(reason)
            return [.warn("\(unconfirmed.joined(separator: ", ")) did not confirm the cancel and may be recording: `dualcam-coordinator resume` stops it")]
        }
        phase = .cancelled(reason)
        return [.discard]
    }
}
