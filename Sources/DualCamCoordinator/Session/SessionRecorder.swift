import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// Runs one recording session across N agents: hello, clock sync, prepare, a common
/// start instant, progressive collection of segments, and the three (N+1) output files.
public final class SessionRecorder {
    let plan: SessionPlan
    let identity: DeviceIdentity
    let logger: Logger
    let progress: @Sendable (String) -> Void
    /// Connects the user's controls (keys, Ctrl-C) to the session once it records.
    let controls: (@Sendable (AsyncStream<SessionEvent>.Continuation) -> Void)?

    public init(plan: SessionPlan, identity: DeviceIdentity, logger: Logger,
                progress: @escaping @Sendable (String) -> Void = { _ in }, interactive: Bool = false,
                takesInterrupts: Bool = true) {
        self.plan = plan
        self.identity = identity
        self.logger = logger
        self.progress = progress
        if interactive {
            controls = { events in LiveControls.shared.attach(events, takesInterrupts: takesInterrupts) }
        } else {
            controls = nil
        }
    }

    public func run() async throws -> SessionResult {
        // Fitted to the cameras once they have said what they deliver.
        var plan = self.plan
        let events = AsyncStream.makeStream(of: SessionEvent.self)
        var links: [AgentLink] = []
        defer { for link in links { link.close() } }
        for (i, endpoint) in plan.agents.enumerated() {
            links.append(try await AgentLink.open(index: i, endpoint: endpoint, identity: identity, events: events.continuation))
        }
        var iterator = events.stream.makeAsyncIterator()
        var agents = plan.agents.map(AgentTracker.init(endpoint:))
        for i in agents.indices { agents[i].link = links[i] }

        // Pulls events until `done` holds for the agents, applying each to their state.
        func pump(until deadline: Int64, what: String, _ done: ([AgentTracker]) -> Bool) async throws {
            while !done(agents) {
                guard MonotonicTime.now() < deadline else { throw CoordinatorError("timed out waiting for \(what)") }
                guard let event = await iterator.next() else { throw CoordinatorError("connections ended") }
                switch event {
                case .tick, .reconnected, .control:
                    continue
                case .stopRequested(let reason):
                    throw CoordinatorError("stopped (\(reason)) before the recording began")
                case .closed(let i, _, let reason):
                    throw CoordinatorError("lost agent \(agents[i].name.isEmpty ? plan.agents[i].host : agents[i].name) while waiting for \(what)\(reason.map { ": \($0)" } ?? "")")
                case .event(let i, _, let delivery):
                    switch delivery.event {
                    case .connected(let ack):
                        agents[i].name = ack.nodeName
                        agents[i].role = ack.role
                        let caps = ack.capabilities
                        agents[i].limits = CameraLimits(maxWidth: Int(caps.maxWidth), maxHeight: Int(caps.maxHeight),
                                                        maxFramesPerSecond: Int(caps.maxFps))
                    case .clockStatus(let status):
                        agents[i].clock = status
                        logger.debug("clock \(i): state \(status.state) offset \(Int(status.offsetNs)) ns rate \(status.ratePpm) ppm bound \(status.errorBoundNs) ns rtt \(status.roundTripNs) ns samples \(status.samples)")
                    case .ready:
                        agents[i].ready = true
                    case .prepareFailed(let error):
                        throw CoordinatorError("agent \(agents[i].name) cannot record: \(error.message)")
                    case .readyTimedOut:
                        throw CoordinatorError("agent \(agents[i].name) did not get ready in time (its camera or encoder did not open)")
                    case .peerError(let error):
                        agents[i].errors.append(error.message)
                        logger.warning("agent \(agents[i].name): \(error.message)")
                        if error.fatal { throw CoordinatorError("agent \(agents[i].name) failed: \(error.message)") }
                    case .telemetry, .recordingFinished, .segmentOffered, .segmentData:
                        break
                    }
                }
            }
        }

        // Each link's machine sent Hello. An agent that refuses this coordinator closes right
        // after the TLS handshake; the link's close event then carries the reason (not
        // paired, with advice), which is what the user must see.
        try await pump(until: MonotonicTime.now() + 10_000_000_000, what: "hello") { $0.allSatisfy { $0.role != .unspecified } }

        fitToCameras(&plan, agents)
        let threshold = plan.clockThresholdNanoseconds
        progress("syncing clocks (threshold \(threshold / 1000) µs)")
        do {
            try await pump(until: MonotonicTime.now() + plan.clockSyncTimeoutNanoseconds,
                           what: "clock sync below \(threshold / 1000) µs") {
                $0.allSatisfy { ($0.clock?.state ?? .clockUnsynced) == .clockLocked && ($0.clock?.errorBoundNs ?? .max) < threshold }
            }
        } catch let error as CoordinatorError {
            // Say which agent held the start back and by how much, so the user can judge
            // the network (the bound never drops below half the best round trip).
            let figures = agents.enumerated().map { i, a in
                "\(a.name.isEmpty ? plan.agents[i].host : a.name): " + (a.clock.map(ClockFigures.describe) ?? "no clock status yet")
            }
            throw CoordinatorError(error.description + "\n  " + figures.joined(separator: "\n  ")
                + "\n  A busy or wireless network raises the round trip; --clock-threshold-us sets the bound the start waits for.")
        }
        for a in agents { progress("  \(a.name): " + (a.clock.map(ClockFigures.describe) ?? "")) }

        let wall = Date()
        let sessionID = SessionNaming.sessionID(for: wall)
        let sessionDirectory = plan.outputDirectory + "/" + sessionID
        try FileManager.default.createDirectory(atPath: sessionDirectory, withIntermediateDirectories: true)
        let lock = try SessionLock(sessionDirectory: sessionDirectory, purpose: "recording")
        defer { withExtendedLifetime(lock) {} }
        let prepare = plan.prepare(sessionID: sessionID)
        for link in links { try link.send(.prepare(prepare)) }
        try await pump(until: MonotonicTime.now() + 15_000_000_000, what: "agents ready") { $0.allSatisfy(\.ready) }

        if let roles = plan.roles {
            for i in agents.indices where i < roles.count { agents[i].role = roles[i] }
        }
        let names = SessionNaming.cameraNames(roles: agents.map(\.role))
        for i in agents.indices {
            agents[i].cameraName = names[i]
            agents[i].phase = .attached
            agents[i].receiver = try SegmentReceiver(sessionDirectory: sessionDirectory, camera: names[i])
        }
        let outputs = try SessionOutputs(plan: plan, sessionDirectory: sessionDirectory, sessionID: sessionID,
                                         cameraNames: names, wallStart: wall, logger: logger)

        // T0 sits on the shared frame grid, so genlocked cameras stamp frames at exactly
        // 0, P, 2P... and the composite's ticks meet them with no phase error.
        let lead = max(plan.startLeadNanoseconds, Int64(plan.countdownSeconds) * 1_000_000_000)
        let t0 = plan.rate.instant(ofFrame: plan.rate.firstFrame(atOrAfter: MonotonicTime.now() + lead))
        let stop = plan.durationSeconds.map { t0 + Int64($0 * 1e9) } ?? 0
        let record = SessionRecord(
            plan: plan, sessionID: sessionID, wallStart: wall, t0: t0, stop: stop,
            agents: agents.map { a in
                .init(name: a.name, role: a.role.name, deviceID: "\(a.endpoint.deviceID)", hosts: a.endpoint.hosts, port: a.endpoint.port)
            })
        // Before StartAt: a coordinator killed from here on leaves what `resume` needs.
        try record.save(in: sessionDirectory)
        let start = record.startAt
        for link in links { try link.send(.startAt(start)) }
        try await Countdown.run(until: t0, progress: progress)
        progress("recording \(sessionID)" + (plan.durationSeconds.map { " for \($0) s" } ?? " until Enter or Ctrl-C"))

        let collector = SessionCollector(plan: plan, identity: identity, logger: logger, progress: progress,
                                         sessionDirectory: sessionDirectory, record: record, agents: agents,
                                         outputs: outputs, events: events.continuation)
        controls?(events.continuation)
        try await collector.run(events.stream)
        let result = try await SessionFinisher.finish(collector, progress: progress)
        var shutdown = Dualcam_V1_Shutdown()
        shutdown.reason = "session complete"
        for link in collector.agents.compactMap(\.link) { try? link.send(.shutdown(shutdown)) }
        return result
    }

    /// A preset asks for at most what every camera delivers; settings given explicitly are
    /// kept, with a word on each camera that must scale its pictures up to meet them.
    private func fitToCameras(_ plan: inout SessionPlan, _ agents: [AgentTracker]) {
        let wanted = CaptureMode(width: plan.width, height: plan.height, rate: plan.rate)
        var mode = wanted
        if plan.fitsSizeToCameras || plan.fitsRateToCameras {
            let fitted = CaptureModeFit.fit(wanted, to: agents.map(\.limits))
            if plan.fitsSizeToCameras { (mode.width, mode.height) = (fitted.width, fitted.height) }
            if plan.fitsRateToCameras { mode.rate = fitted.rate }
            if mode != wanted {
                let cameras = agents.map { "\($0.name) \($0.limits)" }.joined(separator: ", ")
                progress("recording at \(mode), not \(wanted): the most every camera delivers (\(cameras))")
            }
            (plan.width, plan.height, plan.rate) = (mode.width, mode.height, mode.rate)
        }
        for note in CaptureModeFit.shortfalls(mode, cameras: agents.map { ($0.name, $0.limits) }) {
            progress("warning: " + note)
        }
    }

    static func hello() -> Dualcam_V1_Hello {
        var hello = Dualcam_V1_Hello()
        hello.version = WireProtocol.version
        hello.software = "dualcam-coordinator 0.1.0"
        hello.nodeName = ProcessInfo.processInfo.hostName
        return hello
    }
}
