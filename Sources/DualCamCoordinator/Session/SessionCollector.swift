import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// The recording phase of a session, from StartAt (or Resume) until every agent's
/// segments are held or given up on. A lost connection does not end the session: the
/// agent records on, the collector reconnects, sends Resume, and the agent's spool fills
/// the gap (PROTOCOL.md §8.6).
final class SessionCollector {
    let plan: SessionPlan
    let identity: DeviceIdentity
    let logger: Logger
    let progress: @Sendable (String) -> Void
    let sessionDirectory: String
    var record: SessionRecord
    var agents: [AgentTracker]
    let outputs: SessionOutputs
    let events: AsyncStream<SessionEvent>.Continuation
    private var reconnecting: [Int: Task<Void, Never>] = [:]
    var warnings: [String] = []
    private var raised = Set<String>()
    let status: StatusLine
    var layout: LayoutSpec

    init(plan: SessionPlan, identity: DeviceIdentity, logger: Logger, progress: @escaping @Sendable (String) -> Void,
         sessionDirectory: String, record: SessionRecord, agents: [AgentTracker], outputs: SessionOutputs,
         events: AsyncStream<SessionEvent>.Continuation) {
        self.plan = plan
        self.identity = identity
        self.logger = logger
        self.progress = progress
        self.sessionDirectory = sessionDirectory
        self.record = record
        self.agents = agents
        self.outputs = outputs
        self.events = events
        status = StatusLine(progress: progress)
        layout = plan.layout
    }

    var t0: Int64 { record.t0SharedNanoseconds }
    var stopShared: Int64? { record.stopSharedNanoseconds > 0 ? record.stopSharedNanoseconds : nil }
    var sessionID: String { record.sessionID }

    /// Pulls events until every agent is complete or given up on.
    func run(_ stream: AsyncStream<SessionEvent>) async throws {
        let ticker = Task { [events] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 1_000_000_000)
                events.yield(.tick)
            }
        }
        defer {
            ticker.cancel()
            for task in reconnecting.values { task.cancel() }
            status.end()
        }
        for i in agents.indices where agents[i].complete { outputs.stopAwaiting(camera: i) }
        for await event in stream {
            switch event {
            case .event(let i, let generation, let delivery):
                guard generation == agents[i].generation else { continue }
                agents[i].lastHeard = MonotonicTime.now()
                try await handle(delivery.event, from: i)
            case .closed(let i, let generation, let reason):
                guard generation == agents[i].generation else { continue }
                lose(i, reason: reason ?? "connection closed")
            case .reconnected(let i, let link):
                reconnecting[i] = nil
                agents[i].reconnects += 1
                status.note("reconnected to \(agents[i].name)")
                await attach(i, link: link)
            case .tick:
                try await checkDeadlines()
                status.show(line())
            case .stopRequested(let reason):
                try await stop(reason: reason)
            case .control(let control):
                apply(control)
            }
            if agents.allSatisfy({ $0.complete || $0.phase == .gone }) { break }
        }
    }

    private func handle(_ event: CoordinatorEvent, from i: Int) async throws {
        switch event {
        case .connected(let ack):
            guard agents[i].phase == .handshaking else { return }
            agents[i].phase = .attached
            agents[i].ready = false
            if shouldRejoin(i, ack) {
                // A restarted agent: it records the rest of the session, its indices going
                // on after what it spooled before (and uploads that too).
                agents[i].rejoining = true
                status.note("\(agents[i].name) was restarted; it rejoins the recording once its clock is locked")
                try await send(.prepare(plan.prepare(sessionID: sessionID)), to: i)
                return
            }
            try await send(.resume(resumeMessage(i)), to: i)
            if let stopShared { try await sendStop(stopShared, to: i) }
        case .clockStatus(let clock):
            agents[i].clock = clock
            try await startRejoinedIfReady(i)
        case .ready(let ready):
            guard ready.sessionID == sessionID else { return }
            agents[i].ready = true
            try await startRejoinedIfReady(i)
        case .telemetry(let telemetry):
            agents[i].telemetry = telemetry
            checkHealth(i, telemetry)
        case .segmentOffered(let offer):
            guard let receiver = agents[i].receiver, offer.sessionID == sessionID else { return }
            if try !receiver.offer(offer) {
                try await acknowledge(offer.index, bytes: offer.size, durable: true, to: i)
            }
        case .segmentData(let chunk):
            guard let receiver = agents[i].receiver, chunk.sessionID == sessionID else { return }
            if let done = try receiver.data(chunk) {
                try await acknowledge(UInt32(done.index), bytes: done.offer.size, durable: true, to: i)
                agents[i].receivedUpToNanoseconds = max(agents[i].receivedUpToNanoseconds, done.offer.firstPtsNs + done.offer.durationNs)
                outputs.add(segment: done.path, index: done.index, camera: i,
                            firstPresentationNanoseconds: done.offer.firstPtsNs, durationNanoseconds: done.offer.durationNs)
                if agents[i].complete { outputs.stopAwaiting(camera: i) }
            } else if let due = receiver.progressDue(every: WireProtocol.defaultUploadWindowBytes / 4) {
                // Written, not yet durable: opens the agent's upload window (§8.3).
                try await acknowledge(due.index, bytes: due.receivedBytes, durable: false, to: i)
            }
        case .recordingFinished(let finished):
            guard finished.sessionID == sessionID, !agents[i].rejoining else { return }
            agents[i].finished = finished
            if agents[i].complete { outputs.stopAwaiting(camera: i) }
        case .peerError(let error), .prepareFailed(let error):
            agents[i].errors.append(error.message)
            warn("\(agents[i].name): \(error.message)")
            if error.code == .errorSegmentUnavailable && error.sessionID == sessionID && agents[i].finished == nil {
                giveUp(i, because: "it holds nothing more of this session")
            }
        case .readyTimedOut:
            warn("\(agents[i].name) did not get ready to rejoin the recording in time")
        }
    }

    /// An agent that answers the reconnect without recording this session was restarted;
    /// it rejoins while there is time left to record.
    private func shouldRejoin(_ i: Int, _ ack: Dualcam_V1_HelloAck) -> Bool {
        guard agents[i].finished == nil, !ack.recordingSessions.contains(sessionID) else { return false }
        guard let stopShared else { return true }
        return MonotonicTime.now() < stopShared - 5_000_000_000
    }

    private func startRejoinedIfReady(_ i: Int) async throws {
        guard agents[i].rejoining, agents[i].ready, let clock = agents[i].clock,
              clock.state == .clockLocked, clock.errorBoundNs < plan.clockThresholdNanoseconds else { return }
        agents[i].rejoining = false
        agents[i].rejoins += 1
        // The session's own StartAt, with the stop instant if one was decided since.
        try await send(.startAt(record.startAt), to: i)
        status.note("\(agents[i].name) records again")
    }

    private func send(_ body: Dualcam_V1_Envelope.OneOf_Body, to i: Int) async throws {
        guard let link = agents[i].link else { return }
        do {
            try link.send(body)
        } catch {
            // Not allowed in the connection's phase (a message that crossed the agent's
            // own), or the connection is closing: its close event says why, and the
            // session goes on without it.
            logger.debug("not sent to \(agents[i].name): \(error)")
        }
    }

    private func acknowledge(_ index: UInt32, bytes: UInt64, durable: Bool, to i: Int) async throws {
        var ack = Dualcam_V1_SegmentAck()
        ack.sessionID = sessionID
        ack.index = index
        ack.durable = durable
        ack.receivedBytes = bytes
        try await send(.segmentAck(ack), to: i)
    }

    private func sendStop(_ instant: Int64, to i: Int) async throws {
        var stop = Dualcam_V1_Stop()
        stop.sessionID = sessionID
        stop.stopSharedNs = instant
        try await send(.stop(stop), to: i)
    }

    /// Ends the recording a moment from now (on a frame boundary), for every agent.
    func stop(reason: String) async throws {
        guard stopShared == nil else { return }
        let instant = plan.rate.instant(ofFrame: plan.rate.firstFrame(atOrAfter: MonotonicTime.now() + 200_000_000))
        record.stopSharedNanoseconds = instant
        try record.save(in: sessionDirectory)
        status.note("stopping (\(reason))")
        for i in agents.indices where agents[i].phase == .attached { try await sendStop(instant, to: i) }
    }

    private func lose(_ i: Int, reason: String) {
        agents[i].link = nil
        agents[i].receiver?.abandonTransfer()
        guard !agents[i].complete, agents[i].phase != .gone else { return }
        agents[i].phase = .lost(since: MonotonicTime.now())
        warn("lost \(agents[i].name) (\(reason)); it records on, and its segments fill in when it is back")
        startReconnecting(i)
    }

    func startReconnecting(_ i: Int) {
        let endpoint = agents[i].endpoint
        let identity = self.identity
        let events = self.events
        let firstGeneration = agents[i].generation + 1
        reconnecting[i]?.cancel()
        reconnecting[i] = Task {
            var generation = firstGeneration
            func attempt(_ candidate: AgentEndpoint) async -> Bool {
                defer { generation += 1 }
                guard let link = try? await AgentLink.open(index: i, generation: generation, endpoint: candidate,
                                                           identity: identity, events: events) else { return false }
                events.yield(.reconnected(agent: i, link))
                return true
            }
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 2_000_000_000)
                // Where it was, then where mDNS says it is now (a restarted agent may
                // listen on another port).
                if await attempt(endpoint) { return }
                guard !Task.isCancelled,
                      let found = try? await AgentFinder.find([endpoint.deviceID], timeoutSeconds: 2).first,
                      found != endpoint else { continue }
                if await attempt(found) { return }
            }
        }
    }

    private func giveUp(_ i: Int, because reason: String) {
        reconnecting.removeValue(forKey: i)?.cancel()
        agents[i].link?.close()
        agents[i].link = nil
        agents[i].phase = .gone
        outputs.stopAwaiting(camera: i)
        warn("finishing without \(agents[i].name): \(reason); missing segments stay missing")
    }

    /// A lost agent is waited for until the reconnect grace after the stop has passed; an
    /// attached one that says nothing for that long after the stop is treated as lost.
    private func resumeMessage(_ i: Int) -> Dualcam_V1_Resume {
        var resume = Dualcam_V1_Resume()
        resume.sessionID = sessionID
        resume.held = (agents[i].receiver?.received.keys.sorted() ?? []).map(UInt32.init)
        return resume
    }

    private func checkDeadlines() async throws {
        guard let stopShared else { return }
        let now = MonotonicTime.now()
        let grace = Int64(plan.reconnectGraceSeconds * 1e9)
        for i in agents.indices where agents[i].rejoining && now > stopShared - 1_000_000_000 {
            // Too late to record again: fetch what it spooled.
            agents[i].rejoining = false
            try await send(.resume(resumeMessage(i)), to: i)
        }
        for i in agents.indices where !agents[i].complete {
            switch agents[i].phase {
            case .lost(let since) where now > stopShared + grace && now - since > grace:
                giveUp(i, because: "not back \(Int(plan.reconnectGraceSeconds)) s after the stop")
            case .attached, .handshaking:
                if now > stopShared + grace && now - agents[i].lastHeard > grace { agents[i].link?.close() }
            default:
                break
            }
        }
    }

    func warn(_ text: String) {
        warnings.append(text)
        status.note("warning: " + text)
        logger.warning("\(text)")
    }

    /// Warns once per kind and agent.
    private func warnOnce(_ key: String, _ text: String) {
        guard raised.insert(key).inserted else { return }
        warn(text)
    }

    private func checkHealth(_ i: Int, _ t: Dualcam_V1_Telemetry) {
        if t.freeDiskBytes > 0 && t.freeDiskBytes < 500_000_000 {
            warnOnce("disk\(i)", "\(agents[i].name) has \(t.freeDiskBytes / 1_000_000) MB of storage left")
        }
        if t.throttleFlags & 0xF != 0 {
            warnOnce("throttle\(i)", "\(agents[i].name) is throttling (flags 0x\(String(t.throttleFlags, radix: 16))): cool it or lower the preset")
        }
    }
}
