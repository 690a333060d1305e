import Crypto
import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// One coordinator connection, from Hello to RecordingFinished (or Shutdown).
final class CoordinatorSession: Sendable {
    enum Outcome: Sendable { case closed, shutdown }

    let options: AgentOptions
    let clock: AgentClock
    let logger: Logger
    private let state = NIOLockedValueBox(State())

    struct State {
        var settings: RecordingSettings?
    }
    let registry: RecordingRegistry

    init(options: AgentOptions, clock: AgentClock, registry: RecordingRegistry, logger: Logger) {
        self.options = options
        self.clock = clock
        self.registry = registry
        self.logger = logger
    }

    func serve(_ connection: EnvelopeChannel) async throws -> Outcome {
        try await connection.executeThenClose { inbound, outbound in
            let out = EnvelopeWriter(outbound)
            let credit = UploadCredit()
            return try await withThrowingTaskGroup(of: Void.self, returning: Outcome.self) { group in
                // An uploader waiting for window room must wake before the group waits for it.
                defer {
                    credit.close()
                    group.cancelAll()
                }
                for try await received in inbound {
                    let envelope = received.envelope
                    switch envelope.body {
                    case .hello(let hello):
                        if let mismatch = WireProtocol.checkCompatible(peer: hello.version) {
                            logger.error("\(mismatch)")
                            try await out.sendError(.errorVersionMismatch, mismatch, fatal: true)
                            return .closed
                        }
                        logger.info("coordinator \(hello.nodeName) connected (\(hello.software))")
                        credit.setWindow(announced: hello.uploadWindowBytes)
                        try await out.send(.helloAck(helloAck()))
                        group.addTask { try await self.pingLoop(out) }
                    case .clockPong(let pong):
                        let sample = ClockSample(t1: pong.t1Ns, t2: pong.t2Ns, t3: pong.t3Ns, t4: received.receivedAtNanoseconds)
                        if let estimate = clock.add(sample) {
                            try await out.send(.clockStatus(status(estimate, sample: sample)))
                        }
                    case .prepare(let prepare):
                        let settings = options.defaults.merged(with: prepare.video)
                        state.withLockedValue { $0.settings = settings }
                        var ready = Dualcam_V1_Ready()
                        ready.sessionID = prepare.sessionID
                        ready.video = settings.wire
                        ready.sourceDescription = settings.source.description
                        try await out.send(.ready(ready))
                    case .startAt(let start):
                        guard let settings = state.withLockedValue({ $0.settings }), clock.estimate != nil else {
                            try await out.sendError(.errorBadState, "StartAt before Prepare and clock sync", fatal: false)
                            continue
                        }
                        do {
                            let seconds = start.stopSharedNs > start.t0SharedNs
                                ? Double(start.stopSharedNs - start.t0SharedNs) / 1e9 : nil
                            try SpacePlan.check(settings: settings, seconds: seconds, at: options.spoolDirectory, logger: logger)
                        } catch {
                            logger.error("\(error)")
                            try await out.sendError(.errorInsufficientDisk, "\(options.name): \(error)", fatal: false)
                            continue
                        }
                        let pipeline = registry.makePipeline(
                            sessionID: start.sessionID, settings: settings, clock: clock,
                            spool: SegmentSpool(root: options.spoolDirectory), t0Shared: start.t0SharedNs,
                            stopShared: start.stopSharedNs > 0 ? start.stopSharedNs : nil)
                        pipeline.start()
                        logger.info("recording \(start.sessionID) from shared t0=\(start.t0SharedNs) (\(settings.source))")
                        group.addTask {
                            // Held already: what a previous connection had acknowledged (a session
                            // rejoined after this agent restarted).
                            let held = SegmentSpool(root: self.options.spoolDirectory).acknowledged(session: start.sessionID)
                            try await self.upload(session: start.sessionID, held: held, out: out, credit: credit)
                        }
                    case .resume(let resume):
                        logger.info("coordinator resumes \(resume.sessionID) (it holds \(resume.held.count) segments)")
                        group.addTask {
                            try await self.upload(session: resume.sessionID, held: Set(resume.held.map(Int.init)), out: out, credit: credit)
                        }
                    case .stop(let stop):
                        registry.pipeline(stop.sessionID)?.stop(atShared: stop.stopSharedNs)
                    case .segmentAck(let ack):
                        credit.acknowledge(ack)
                        if ack.durable {
                            registry.pipeline(ack.sessionID)?.stats.update { _ = $0.acknowledged.insert(Int(ack.index)) }
                            let spool = SegmentSpool(root: options.spoolDirectory)
                            do {
                                try spool.acknowledge(session: ack.sessionID, index: Int(ack.index), prune: options.pruneAcknowledged)
                            } catch {
                                logger.warning("cannot record the coordinator's receipt of segment \(ack.index): \(error)")
                            }
                        }
                    case .segmentRequest(let request):
                        // Resume (PROTOCOL.md §8.5): re-offer from the spool, if still held.
                        let spool = SegmentSpool(root: options.spoolDirectory)
                        guard let segment = spool.segments(session: request.sessionID).first(where: { $0.index == Int(request.index) }),
                              FileManager.default.fileExists(atPath: segment.path) else {
                            try await out.sendError(.errorSegmentUnavailable,
                                                    "segment \(request.index) of \(request.sessionID) is not in this agent's spool", fatal: false)
                            continue
                        }
                        group.addTask {
                            try await SegmentUploader(out: out, credit: credit).upload(segment, from: Int(request.offset))
                        }
                    case .shutdown:
                        return .shutdown
                    case .keepalive, .none:
                        break
                    default:
                        try await out.sendError(.errorBadMessage, "unexpected message from a coordinator", fatal: false)
                    }
                }
                return .closed
            }
        }
    }

    /// Uploads a session on this connection (PROTOCOL.md §8.6): the spooled segments the
    /// coordinator lacks, then each new one while it records, then RecordingFinished.
    private func upload(session sessionID: String, held: Set<Int>, out: EnvelopeWriter, credit: UploadCredit) async throws {
        let spool = SegmentSpool(root: options.spoolDirectory)
        let followed = registry.follow(sessionID)
        defer { if let followed { registry.unfollow(sessionID, token: followed.token) } }
        let spooled = spool.segments(session: sessionID)
        guard followed != nil || !spooled.isEmpty else {
            try await out.sendError(.errorSegmentUnavailable, "\(options.name) holds nothing of session \(sessionID)",
                                    fatal: false, sessionID: sessionID)
            return
        }
        let telemetry = followed.map { _ in Task { try await reportTelemetry(sessionID, out: out) } }
        defer { telemetry?.cancel() }
        let uploader = SegmentUploader(out: out, credit: credit)
        var sent = held
        for segment in spooled where !sent.contains(segment.index) {
            guard FileManager.default.fileExists(atPath: segment.path) else {
                logger.warning("segment \(segment.index) of \(sessionID) was pruned before the coordinator held it")
                continue
            }
            try await uploader.upload(segment)
            sent.insert(segment.index)
        }
        if let followed {
            for await segment in followed.stream where !sent.contains(segment.index) {
                try await uploader.upload(segment)
                sent.insert(segment.index)
            }
        }
        let summary: RecordingSummary
        if followed != nil {
            // No summary: another connection took the session over and reports its end.
            guard let ended = registry.summary(sessionID) else { return }
            summary = ended
        } else {
            // Recorded by an earlier process of this agent (it was restarted since).
            summary = RecordingSummary(segments: (spooled.map(\.index).max() ?? -1) + 1,
                                       framesCaptured: spooled.reduce(0) { $0 + $1.frameCount }, framesDropped: 0)
        }
        for note in summary.notes { logger.warning("\(note)") }
        if let error = summary.error {
            logger.error("recording failed: \(error)")
            try await out.sendError(.errorSourceFailed, error, fatal: false)
        }
        var finished = Dualcam_V1_RecordingFinished()
        finished.sessionID = sessionID
        finished.segmentCount = UInt32(summary.segments)
        finished.framesCaptured = UInt64(summary.framesCaptured)
        finished.framesDropped = UInt64(summary.framesDropped)
        try await out.send(.recordingFinished(finished))
        logger.info("recording \(sessionID) finished: \(summary.segments) segments, \(summary.framesCaptured) frames, \(summary.framesDropped) dropped")
    }

    /// Telemetry every second while the session records, and a line in the log now and then.
    private func reportTelemetry(_ sessionID: String, out: EnvelopeWriter) async throws {
        guard let pipeline = registry.pipeline(sessionID) else { return }
        let reporter = TelemetryReporter(stats: pipeline.stats, clock: clock, spoolPath: options.spoolDirectory,
                                         countsAcknowledgements: true)
        var tick = 0
        while registry.summary(sessionID) == nil && !Task.isCancelled {
            try await Task.sleep(nanoseconds: 1_000_000_000)
            let sample = reporter.sample()
            try await out.send(.telemetry(sample.message))
            tick += 1
            if tick % options.telemetryLogSeconds == 0 { logger.info("\(sample.line)") }
        }
    }

    private func helloAck() -> Dualcam_V1_HelloAck {
        var ack = Dualcam_V1_HelloAck()
        ack.version = WireProtocol.version
        ack.software = "dualcam-agent 0.1.0"
        ack.nodeName = options.name
        ack.role = options.role
        var caps = Dualcam_V1_Capabilities()
        caps.videoCodecs = ["libx264", "libx265", "h264_v4l2m2m"]
        caps.sources = ["synthetic", "v4l2", "stdin"]
        let limits = SourceLimits.of(options.defaults)
        caps.maxWidth = UInt32(limits.maxWidth)
        caps.maxHeight = UInt32(limits.maxHeight)
        caps.maxFps = UInt32(limits.maxFramesPerSecond)
        caps.freeDiskBytes = UInt64(max(DiskSpace.freeBytes(at: options.spoolDirectory) ?? 0, 0))
        ack.capabilities = caps
        ack.recordingSessions = registry.recording
        ack.pendingSessions = SegmentSpool(root: options.spoolDirectory).unacknowledgedSessions()
        return ack
    }

    private func status(_ estimate: ClockEstimate, sample: ClockSample) -> Dualcam_V1_ClockStatus {
        var s = Dualcam_V1_ClockStatus()
        switch estimate.state {
        case .unsynced: s.state = .clockUnsynced
        case .converging: s.state = .clockConverging
        case .locked: s.state = .clockLocked
        }
        s.offsetNs = estimate.offsetNanoseconds
        s.ratePpm = estimate.rate * 1e6
        s.errorBoundNs = estimate.errorBoundNanoseconds
        s.samples = UInt32(estimate.samplesUsed)
        s.roundTripNs = sample.delayNanoseconds
        return s
    }

    private func pingLoop(_ out: EnvelopeWriter) async throws {
        var id: UInt64 = 0
        while !Task.isCancelled {
            id += 1
            var ping = Dualcam_V1_ClockPing()
            ping.id = id
            try await out.send(.clockPing(ping))
            try await Task.sleep(nanoseconds: UInt64(max(clock.nextPollInterval(), 10_000_000)))
        }
    }
}
