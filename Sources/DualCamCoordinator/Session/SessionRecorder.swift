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

    public init(plan: SessionPlan, identity: DeviceIdentity, logger: Logger,
                progress: @escaping @Sendable (String) -> Void = { _ in }) {
        self.plan = plan
        self.identity = identity
        self.logger = logger
        self.progress = progress
    }

    struct AgentState {
        var name = ""
        var role: Dualcam_V1_Role = .unspecified
        var clock: Dualcam_V1_ClockStatus?
        var ready = false
        var finished: Dualcam_V1_RecordingFinished?
        var receiver: SegmentReceiver?
        var segmentsReceived = 0
        var errors: [String] = []
        var closed = false
    }

    public func run() async throws -> SessionResult {
        let events = AsyncStream.makeStream(of: LinkEvent.self)
        var links: [AgentLink] = []
        defer { for link in links { link.close() } }
        for (i, endpoint) in plan.agents.enumerated() {
            links.append(try await AgentLink.open(index: i, endpoint: endpoint, identity: identity, events: events.continuation))
        }
        var iterator = events.stream.makeAsyncIterator()
        var agents = Array(repeating: AgentState(), count: links.count)

        // Pulls events until `done` holds for the agents, applying each to their state.
        func pump(until deadline: Int64, what: String, _ done: ([AgentState]) -> Bool,
                  onMessage: (Int, ReceivedEnvelope) async throws -> Void = { _, _ in }) async throws {
            while !done(agents) {
                guard MonotonicTime.now() < deadline else { throw CoordinatorError("timed out waiting for \(what)") }
                guard let event = await iterator.next() else { throw CoordinatorError("connections ended") }
                switch event {
                case .closed(let i, let reason):
                    agents[i].closed = true
                    throw CoordinatorError("lost agent \(agents[i].name.isEmpty ? plan.agents[i].host : agents[i].name) while waiting for \(what)\(reason.map { ": \($0)" } ?? "")")
                case .message(let i, let received):
                    switch received.envelope.body {
                    case .helloAck(let ack):
                        if let mismatch = WireProtocol.checkCompatible(peer: ack.version) { throw CoordinatorError(mismatch) }
                        agents[i].name = ack.nodeName
                        agents[i].role = ack.role
                    case .clockStatus(let status):
                        agents[i].clock = status
                        logger.debug("clock \(i): state \(status.state) offset \(Int(status.offsetNs)) ns rate \(status.ratePpm) ppm bound \(status.errorBoundNs) ns rtt \(status.roundTripNs) ns samples \(status.samples)")
                    case .ready:
                        agents[i].ready = true
                    case .error(let error):
                        agents[i].errors.append(error.message)
                        logger.warning("agent \(agents[i].name): \(error.message)")
                        if error.fatal { throw CoordinatorError("agent \(agents[i].name) failed: \(error.message)") }
                    default:
                        try await onMessage(i, received)
                    }
                }
            }
        }

        var hello = Dualcam_V1_Hello()
        hello.version = WireProtocol.version
        hello.software = "dualcam-coordinator 0.1.0"
        hello.nodeName = ProcessInfo.processInfo.hostName
        // An agent that refuses this coordinator closes right after the TLS handshake, so
        // the Hello may fail to go out; the link's close event then carries the reason
        // (not paired, with advice), which is what the user must see, not the write error.
        for link in links { try? await link.writer.send(.hello(hello)) }
        try await pump(until: MonotonicTime.now() + 10_000_000_000, what: "hello") { $0.allSatisfy { $0.role != .unspecified } }

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
        var prepare = Dualcam_V1_Prepare()
        prepare.sessionID = sessionID
        prepare.video = plan.videoSettings
        for link in links { try await link.writer.send(.prepare(prepare)) }
        try await pump(until: MonotonicTime.now() + 15_000_000_000, what: "agents ready") { $0.allSatisfy(\.ready) }

        let names = SessionNaming.cameraNames(roles: agents.map(\.role))
        for i in agents.indices {
            agents[i].receiver = try SegmentReceiver(directory: sessionDirectory + "/segments/" + names[i].lowercased())
        }
        let outputs = try SessionOutputs(plan: plan, sessionDirectory: sessionDirectory, sessionID: sessionID,
                                         cameraNames: names, wallStart: wall, logger: logger)

        // T0 sits on the shared frame grid, so genlocked cameras stamp frames at exactly
        // 0, P, 2P... and the composite's ticks meet them with no phase error.
        let t0 = plan.rate.instant(ofFrame: plan.rate.firstFrame(atOrAfter: MonotonicTime.now() + plan.startLeadNanoseconds))
        let durationNs = Int64(plan.durationSeconds * 1e9)
        var start = Dualcam_V1_StartAt()
        start.sessionID = sessionID
        start.t0SharedNs = t0
        start.stopSharedNs = t0 + durationNs
        for link in links { try await link.writer.send(.startAt(start)) }
        progress("recording \(sessionID) for \(plan.durationSeconds) s")

        try await pump(until: t0 + durationNs + 60_000_000_000, what: "the agents' segments", { agents in
            agents.allSatisfy { a in a.finished.map { Int($0.segmentCount) == a.segmentsReceived } ?? false }
        }, onMessage: { i, received in
            switch received.envelope.body {
            case .segmentOffer(let offer):
                try agents[i].receiver?.offer(offer)
            case .segmentData(let chunk):
                if let done = try agents[i].receiver?.data(chunk) {
                    agents[i].segmentsReceived += 1
                    var ack = Dualcam_V1_SegmentAck()
                    ack.sessionID = sessionID
                    ack.index = UInt32(done.index)
                    ack.durable = true
                    ack.receivedBytes = done.offer.size
                    try await links[i].writer.send(.segmentAck(ack))
                    try outputs.add(segment: done.path, index: done.index, camera: i)
                } else if let due = agents[i].receiver?.progressDue(every: WireProtocol.defaultUploadWindowBytes / 4) {
                    // Written, not yet durable: opens the agent's upload window (§8.3).
                    var ack = Dualcam_V1_SegmentAck()
                    ack.sessionID = sessionID
                    ack.index = due.index
                    ack.receivedBytes = due.receivedBytes
                    try await links[i].writer.send(.segmentAck(ack))
                }
            case .recordingFinished(let finished):
                agents[i].finished = finished
            default:
                break
            }
        })
        progress("finalising")
        let stats = agents.map { a in
            CameraStatistics(name: a.name, role: a.role.name,
                             framesCaptured: Int(a.finished?.framesCaptured ?? 0),
                             framesDropped: Int(a.finished?.framesDropped ?? 0),
                             segments: a.segmentsReceived,
                             clockOffsetNanoseconds: a.clock?.offsetNs ?? 0, clockRatePPM: a.clock?.ratePpm ?? 0,
                             clockErrorBoundNanoseconds: a.clock?.errorBoundNs ?? 0)
        }
        let result = try await outputs.finish(t0Shared: t0, durationNanoseconds: durationNs, cameras: stats,
                                              deviceIDs: plan.agents.map { "\($0.deviceID)" })
        let afterStop = Double(MonotonicTime.now() - (t0 + durationNs)) / 1e9
        progress(String(format: "files final %.2f s after the stop instant", afterStop))
        var shutdown = Dualcam_V1_Shutdown()
        shutdown.reason = "session complete"
        for link in links { try? await link.writer.send(.shutdown(shutdown)) }
        return result
    }
}
