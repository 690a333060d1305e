import Crypto
import DualCamCore
import DualCamNet
import DualCamProtocol
import DualCamMedia
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

typealias AgentConnection = ProtocolConnection<AgentConnectionStateMachine>

/// One coordinator connection, from Hello to its close. The protocol's rules are the
/// agent state machine's (DualCamProtocol): what arrives here has been validated and fits
/// the connection's phase; this shell opens sources, records, uploads and reports.
final class CoordinatorLink: Sendable {
    enum Outcome: Sendable { case closed, shutdown }

    let options: AgentOptions
    let clock: AgentClock
    let logger: Logger
    let registry: RecordingRegistry
    /// Prepared sessions by ID: the source and encoder open, waiting for StartAt.
    let prepared: PreparedSessions
    private let shutdownRequested = NIOLockedValueBox(false)
    private let tasks = TaskBag()
    private let startLeads = NIOLockedValueBox<[String: Int64?]>([:])
    /// Telemetry between takes, while the preview is watched.
    private let idleTelemetry = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// The clock lane the coordinator offered on this connection (§20), if any.
    private let lane = NIOLockedValueBox<ClockLaneClient?>(nil)
    private let clockLog: ClockLog?
    /// This connection as the agent's admission weighs it against a newer one.
    private let held: HeldConnection
    /// Whether the camera is there, said in HelloAck and Telemetry (PROTOCOL.md §4.1).
    private let watch: SourceWatch
    /// The Pi camera's steering, which a take may turn off (`--no-phase-lock`).
    private let piSync: PiSyncSender?

    init(options: AgentOptions, clock: AgentClock, registry: RecordingRegistry, prepared: PreparedSessions, held: HeldConnection,
         watch: SourceWatch, piSync: PiSyncSender? = nil, logger: Logger) {
        self.options = options
        self.piSync = piSync
        self.held = held
        self.watch = watch
        self.clock = clock
        self.clockLog = ClockLog(path: options.clockLogPath)
        self.registry = registry
        self.prepared = prepared
        self.logger = logger
    }

    func serve(_ channel: EnvelopeChannel) async throws -> Outcome {
        var configuration = AgentConnectionStateMachine.Configuration(helloAck: helloAck())
        configuration.timeouts = ConnectionTimeouts()
        let machine = AgentConnectionStateMachine(configuration: configuration, now: clock.localNow())
        let connection = AgentConnection(machine: machine, clock: { [clock] in clock.localNow() })
        held.attach(connection)
        let credit = UploadCredit()
        let preview = previewStreamer(connection)
        let context = Context(connection: connection, credit: credit, turn: UploadTurn(), preview: preview,
                              localIP: channel.channel.localAddress?.ipAddress, coordinatorIP: channel.channel.remoteAddress?.ipAddress,
                              scopeID: channel.channel.localAddress?.ipv6ScopeID ?? 0)
        // A camera that goes or comes back is told at once, not at the next take (§4.1).
        let listening = watch.listen { problem in
            var status = Dualcam_V1_SourceStatus()
            status.problem = WireSentences.fitted([problem ?? ""])[0]
            try? connection.send(.sourceStatus(status))
        }
        defer {
            watch.unlisten(listening)
            piSync?.setPaused(false)
            lane.withLockedValue { $0?.stop(); $0 = nil }
            reportBetweenTakes(false, connection)
            preview.end()
            prepared.camera?.want(false)
            // An uploader waiting for window room must wake before its task is cancelled.
            credit.close()
            tasks.cancelAll()
            // A session prepared and never started holds the camera: let it go.
            prepared.discardAll()
        }
        let reason = try await connection.run(channel) { delivery in
            await self.handle(delivery, context)
        }
        if let reason { logger.warning("coordinator connection closed: \(reason)") }
        return shutdownRequested.withLockedValue { $0 } ? .shutdown : .closed
    }

    /// What the handlers of one connection share.
    struct Context: Sendable {
        let connection: AgentConnection
        let credit: UploadCredit
        /// One transfer at a time on a connection (PROTOCOL.md §8.1).
        let turn: UploadTurn
        let preview: PreviewStreamer
        /// The two ends of the connection, where a clock lane runs too.
        let localIP: String?
        let coordinatorIP: String?
        /// The interface of an IPv6 link-local connection, which the lane's socket needs too.
        let scopeID: UInt32
    }

    /// Preview pictures go out only when nothing else waits to be written (PROTOCOL.md
    /// §16): behind a segment chunk a picture would be stale, and in front of one it
    /// would delay the recording's upload.
    private func previewStreamer(_ connection: AgentConnection) -> PreviewStreamer {
        PreviewStreamer(deliver: { [clock] picture in
            guard Self.waitUntilDrained(connection) else { return false }
            var frame = Dualcam_V1_PreviewFrame()
            frame.index = picture.index
            // Before the clock locks, the preview's stamps are the node's own clock's.
            let captured = LocalInstant(nanoseconds: picture.localCapture)
            frame.captureSharedNs = (clock.estimate?.shared(fromLocal: captured) ?? SharedInstant(unsynchronised: captured)).nanoseconds
            frame.keyframe = picture.keyframe
            frame.width = UInt32(picture.width)
            frame.height = UInt32(picture.height)
            frame.h264 = Data(picture.h264)
            frame.sentSharedNs = clock.estimate?.shared(fromLocal: clock.now).nanoseconds ?? 0
            return (try? connection.send(.previewFrame(frame))) != nil
        }, onError: { [logger] in logger.error("preview: \($0)") })
    }

    /// How long the preview's thread waits for a segment chunk ahead of a picture to be
    /// written, rather than lose the picture at once: a chunk clears within milliseconds,
    /// and each picture lost made the next a key frame, larger and slower to send, so one
    /// camera of the 720p demo lost 12 pictures in 10 s with 18 key frames instead of 10
    /// (tools/bench/studio-latency.py). Half a frame at 30 fps: a picture later than that
    /// is overtaken by the next.
    static let previewDrainWaitNanoseconds: Int64 = 15_000_000

    /// Called on the preview's own thread, which may sleep.
    private static func waitUntilDrained(_ connection: AgentConnection) -> Bool {
        let deadline = MonotonicTime.now() + previewDrainWaitNanoseconds
        while !connection.isDrained {
            guard MonotonicTime.now() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    private func handle(_ delivery: Delivery<AgentEvent>, _ c: Context) async {
        switch delivery.event {
        case .connected(let hello):
            logger.info("coordinator \(hello.nodeName) connected (\(WireIdentifier.printable(hello.software, maxCharacters: 64)))")
            c.credit.setWindow(announced: hello.uploadWindowBytes)
            tasks.spawn { try await self.pingLoop(c.connection) }
        case .clockSample(let sample):
            // Over the connection a ping can wait behind a segment chunk and its answer
            // behind a busy event loop: while the lane answers, its exchanges alone count.
            guard lane.withLockedValue({ $0?.isAnswering }) != true else { return }
            absorb(sample, path: .tls, c)
        case .clockLaneOffered(let offer):
            openClockLane(offer, c)
        case .prepare(let prepare):
            tasks.spawn { await self.prepare(prepare, c) }
        case .startAt(let start):
            tasks.spawn { try await self.start(start, c) }
        case .stop(let stop):
            if let pipeline = registry.pipeline(stop.sessionID) {
                pipeline.stop(atShared: SharedInstant(nanoseconds: stop.stopSharedNs))
            } else if !registry.knows(stop.sessionID) {
                // Cancelled before StartAt: nothing was recorded.
                prepared.discard(stop.sessionID)
                logger.info("session \(stop.sessionID) cancelled before it started")
                finish(stop.sessionID, RecordingSummary(segments: 0, framesCaptured: 0, framesDropped: 0), c)
            }
        case .segmentAck(let ack):
            acknowledge(ack, c)
        case .segmentRequested(let request, let sequence):
            tasks.spawn { try await self.resend(request, requestSequence: sequence, c) }
        case .resume(let resume):
            logger.info("coordinator resumes \(resume.sessionID) (it holds \(resume.held.count) segments)")
            held.drives(resume.sessionID)
            tasks.spawn {
                try await self.upload(session: resume.sessionID, held: Set(resume.held.map(Int.init)), c)
            }
        case .uploadWindowOpened:
            break  // UploadCredit hears the same acknowledgements
        case .shutdown:
            shutdownRequested.withLockedValue { $0 = true }
            c.connection.finish()
        case .peerError(let error):
            logger.warning("coordinator reported \(error.code): \(error.message)")
        case .previewRequest(let request):
            let settings = request.width == 0 ? nil
                : PreviewSettings(width: Int(request.width), height: Int(request.height), fps: Int(request.fps),
                                  bitrate: Int(request.bitrate))
            c.preview.request(settings)
            prepared.camera?.want(settings != nil)
            reportBetweenTakes(settings != nil, c.connection)
        case .forgetSession(let request):
            forget(request, c)
        case .cameraRequest(let request):
            camera(request, c)
        }
    }

    /// Opens the source and the encoder now, so that StartAt only starts (see
    /// PreparedSessions); Ready once the first frame is captured, or the refusal.
    private func prepare(_ prepare: Dualcam_V1_Prepare, _ c: Context) async {
        // One take at a time on a node: a take asked for while another records (a second
        // coordinator run, or one that forgot a take whose coordinator left) is refused,
        // never recorded beside it into the spool.
        if let other = registry.recording.first(where: { $0 != prepare.sessionID }) {
            logger.notice("take \(prepare.sessionID) refused: recording \(other)")
            try? c.connection.send(.error(wireError(.errorBusy, "\(options.name) is recording take \(other) and takes no other until it "
                + "ends; stop it (`dualcam-coordinator resume \(other)` finishes it if its coordinator left)", sessionID: prepare.sessionID)))
            return
        }
        held.drives(prepare.sessionID)
        var settings = options.defaults.merged(with: prepare.video)
        if prepare.role != .unspecified, var identity = settings.patternIdentity {
            identity.role = prepare.role.name
            settings.patternIdentity = identity
        }
        piSync?.setPaused(!settings.phaseLock)
        let opened = clock.source.now
        // A microphone that cannot open costs the take its sound, never its pictures.
        let soundProblem = AudioProbe.problem(settings.audio)
        if let soundProblem {
            settings.audio.source = .none
            logger.warning("\(prepare.sessionID): \(soundProblem)")
        }
        do {
            let session = try await prepared.open(sessionID: prepare.sessionID, settings: settings, clock: clock)
            var ready = Dualcam_V1_Ready()
            ready.sessionID = prepare.sessionID
            ready.video = settings.wire
            if let automatic = session.automatic {
                logger.notice("\(prepare.sessionID): preset auto: \(automatic.summary)")
                ready.presetsMeasured = automatic.wire
                ready.video.preset = automatic.outcome.preset ?? ""
                ready.video.encoder = automatic.encoder
            } else {
                ready.video.encoder = session.encoder.maker.encoderName
                ready.video.preset = session.encoder.maker.preset ?? ready.video.preset
            }
            ready.sourceDescription = WireSentences.fitted([session.description + "; "
                + (settings.audio.isEnabled ? "sound: \(settings.audio.summary)" : "no sound")])[0]
            ready.warnings = WireSentences.fitted(soundProblem.map { [$0] } ?? [])
            try c.connection.send(.ready(ready))
            logger.info(.init(stringLiteral: String(format: "prepared %@ in %.2f s: %@", prepare.sessionID, clock.source.seconds(since: opened),
                                                     session.description)))
        } catch {
            logger.error("cannot prepare \(prepare.sessionID): \(error)")
            var refusal = wireError(.errorSourceFailed, "\(options.name): \(error)", sessionID: prepare.sessionID)
            if let slow = error as? EncoderTooSlow {
                refusal.code = .errorTooSlow
                refusal.fits = slow.fits.prefix(16).map(Dualcam_V1_VideoSettings.init(mode:))
            }
            try? c.connection.send(.error(refusal))
        }
    }

    private func start(_ start: Dualcam_V1_StartAt, _ c: Context) async throws {
        held.drives(start.sessionID)
        // How long before T0 the StartAt came: with the first frame's delay after T0, the
        // time from StartAt to the first recorded frame (logged at the end).
        let leadNanoseconds = clock.estimate.map { SharedInstant(nanoseconds: start.t0SharedNs) - $0.shared(fromLocal: clock.now) }
        startLeads.withLockedValue { $0[start.sessionID] = leadNanoseconds }
        guard let session = prepared.take(start.sessionID) else {
            // StartAt is allowed only after our Ready, so the prepared session is there
            // unless its source died in between.
            refuse(start.sessionID, .errorSourceFailed, "\(options.name) lost its source before the start", c)
            return
        }
        let settings = session.settings
        do {
            let seconds = start.stopSharedNs > start.t0SharedNs ? Double(start.stopSharedNs - start.t0SharedNs) / 1e9 : nil
            try SpacePlan.check(settings: settings, seconds: seconds, at: options.spoolDirectory, logger: logger)
        } catch {
            session.close()
            logger.error("\(error)")
            refuse(start.sessionID, .errorInsufficientDisk, "\(options.name): \(error)", c)
            return
        }
        let pipeline = registry.makePipeline(
            sessionID: start.sessionID, settings: settings, clock: clock,
            spool: SegmentSpool(root: options.spoolDirectory), t0Shared: SharedInstant(nanoseconds: start.t0SharedNs),
            stopShared: start.stopSharedNs > 0 ? SharedInstant(nanoseconds: start.stopSharedNs) : nil)
        pipeline.start(with: session)
        logger.info("recording \(start.sessionID) from shared t0=\(start.t0SharedNs) (\(settings.source))")
        // Held already: what a previous connection had acknowledged (a session rejoined
        // after this agent restarted).
        let acknowledged = SegmentSpool(root: options.spoolDirectory).acknowledged(session: start.sessionID)
        try await upload(session: start.sessionID, held: acknowledged, c)
    }

    /// A session that cannot record: the reason, then its end with nothing recorded, so
    /// that the coordinator goes on without this camera instead of waiting for it.
    private func refuse(_ sessionID: String, _ code: Dualcam_V1_ErrorCode, _ message: String, _ c: Context) {
        try? c.connection.send(.error(wireError(code, message, sessionID: sessionID)))
        finish(sessionID, RecordingSummary(segments: 0, framesCaptured: 0, framesDropped: 0), c)
    }

    private func acknowledge(_ ack: Dualcam_V1_SegmentAck, _ c: Context) {
        c.credit.acknowledge(ack)
        guard ack.durable else { return }
        registry.pipeline(ack.sessionID)?.stats.update { _ = $0.acknowledged.insert(Int(ack.index)) }
        do {
            try SegmentSpool(root: options.spoolDirectory).acknowledge(session: ack.sessionID, index: Int(ack.index),
                                                                      prune: options.pruneAcknowledged)
        } catch {
            logger.warning("cannot record the coordinator's receipt of segment \(ack.index): \(error)")
        }
    }

    /// Re-offers a segment from the spool (PROTOCOL.md §8.5), or says it is gone.
    private func resend(_ request: Dualcam_V1_SegmentRequest, requestSequence: UInt64, _ c: Context) async throws {
        let spool = SegmentSpool(root: options.spoolDirectory)
        let listed = spool.segments(session: request.sessionID).first(where: { $0.index == Int(request.index) })
        let problem = listed.map { spool.problem(with: $0) } ?? "is not in this agent's spool"
        guard let segment = listed, problem == nil else {
            let message = "segment \(request.index) of \(request.sessionID) \(problem ?? "")"
            try c.connection.send(.error(wireError(.errorSegmentUnavailable, message)), inReplyTo: requestSequence)
            return
        }
        try await c.turn.run {
            try await SegmentUploader(connection: c.connection, credit: c.credit).upload(segment, from: Int(request.offset))
        }
    }

    /// Uploads a session on this connection (PROTOCOL.md §8.6): the spooled segments the
    /// coordinator lacks, then each new one while it records, then RecordingFinished. A
    /// spooled segment that is gone or damaged is checked before it is offered, named in
    /// the log and in RecordingFinished, and the rest goes on without it: one bad file on
    /// an SD card must not hold up the whole session.
    private func upload(session sessionID: String, held: Set<Int>, _ c: Context) async throws {
        let spool = SegmentSpool(root: options.spoolDirectory)
        let followed = registry.follow(sessionID)
        defer { if let followed { registry.unfollow(sessionID, token: followed.token) } }
        let spooled = spool.segments(session: sessionID)
        guard followed != nil || !spooled.isEmpty else {
            try c.connection.send(.error(wireError(.errorSegmentUnavailable, "\(options.name) holds nothing of session \(sessionID)",
                                                   sessionID: sessionID)))
            return
        }
        let telemetry = followed.map { _ in Task { try await reportTelemetry(sessionID, c.connection) } }
        defer { telemetry?.cancel() }
        let uploader = SegmentUploader(connection: c.connection, credit: c.credit)
        var sent = held
        var unavailable = spool.lost(session: sessionID)
        for segment in spooled where !sent.contains(segment.index) && !unavailable.contains(segment.index) {
            if let problem = spool.problem(with: segment) {
                lose(segment, problem, spool: spool)
                unavailable.insert(segment.index)
                continue
            }
            do {
                try await c.turn.run { try await uploader.upload(segment) }
            } catch let error as SpoolError {
                lose(segment, error.description, spool: spool)
                unavailable.insert(segment.index)
                continue
            }
            sent.insert(segment.index)
        }
        if let followed {
            for await segment in followed.stream where !sent.contains(segment.index) {
                try await c.turn.run { try await uploader.upload(segment) }
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
            try c.connection.send(.error(wireError(.errorSourceFailed, error, sessionID: sessionID)))
        }
        // Segments lost while being written are noted in the spool as they happen.
        finish(sessionID, summary, c, unavailable: unavailable.union(spool.lost(session: sessionID)))
    }

    private func lose(_ segment: SpooledSegment, _ problem: String, spool: SegmentSpool) {
        logger.error("segment \(segment.index) of \(segment.sessionID) \(problem): the coordinator will finish the session without it")
        do {
            try spool.markLost(session: segment.sessionID, index: segment.index)
        } catch {
            logger.warning("cannot note segment \(segment.index) as lost: \(error)")
        }
    }

    private func finish(_ sessionID: String, _ summary: RecordingSummary, _ c: Context, unavailable: Set<Int> = []) {
        var finished = Dualcam_V1_RecordingFinished()
        finished.sessionID = sessionID
        if held.take == sessionID { held.drives(nil) }
        finished.segmentCount = UInt32(clamping: summary.segments)
        finished.unavailableSegments = unavailable.filter { $0 < summary.segments }.sorted().map { UInt32($0) }
        finished.framesCaptured = UInt64(clamping: summary.framesCaptured)
        finished.framesDropped = UInt64(clamping: summary.framesDropped)
        finished.notes = WireSentences.fitted(summary.notes)
        finished.presetSwitches = summary.presetSwitches.prefix(min(summary.segments, WireProtocol.maxPresetSwitches)).map(\.wire)
        do {
            try c.connection.send(.recordingFinished(finished))
        } catch {
            logger.warning("RecordingFinished for \(sessionID) not sent: \(error)")
        }
        if summary.segments == 0 && summary.framesCaptured == 0 && SegmentSpool(root: options.spoolDirectory).removeIfEmpty(session: sessionID) {
            logger.info("recording \(sessionID) ended before its first frame\(summary.error == nil ? " (stopped at T0: cancelled)" : ""); nothing kept")
            return
        }
        logger.info("recording \(sessionID) finished: \(summary.segments) segments, \(summary.framesCaptured) frames, \(summary.framesDropped) dropped")
        if let late = summary.firstFrameStoredAfterT0Nanoseconds {
            let lead = startLeads.withLockedValue { $0.removeValue(forKey: sessionID) ?? nil }
            let fromStart = lead.map { String(format: ", %.1f ms after StartAt arrived (T0 was %.1f ms ahead)", Double($0 + late) / 1e6, Double($0) / 1e6) } ?? ""
            logger.notice(.init(stringLiteral: String(format: "%@: first frame stored %.1f ms after T0", sessionID, Double(late) / 1e6) + fromStart))
        }
    }

    /// Between takes, while someone watches the preview, the camera's rate and drops and
    /// the node's temperature, disk and clock once a second, as during a take: the
    /// operator checks the rig before recording. A take's own telemetry takes over while
    /// it records.
    private func reportBetweenTakes(_ on: Bool, _ connection: AgentConnection) {
        let running = idleTelemetry.withLockedValue { task -> Task<Void, Never>? in
            defer { if !on { task = nil } }
            return task
        }
        if !on {
            running?.cancel()
            return
        }
        guard running == nil, let camera = prepared.camera else { return }
        let reporter = TelemetryReporter(stats: camera.stats, clock: clock, spoolPath: options.spoolDirectory,
                                         countsAcknowledgements: false)
        let task = Task { [registry, clock] in
            while !Task.isCancelled {
                try? await clock.source.sleep(nanoseconds: 1_000_000_000)
                let sample = reporter.sample()
                guard registry.recording.isEmpty, !Task.isCancelled else { continue }
                try? connection.send(.telemetry(sample.message))
            }
        }
        idleTelemetry.withLockedValue { $0 = task }
    }

    /// Telemetry every second while the session records, and a line in the log now and then.
    private func reportTelemetry(_ sessionID: String, _ connection: AgentConnection) async throws {
        guard let pipeline = registry.pipeline(sessionID) else { return }
        let reporter = TelemetryReporter(stats: pipeline.stats, clock: clock, spoolPath: options.spoolDirectory,
                                         countsAcknowledgements: true)
        var tick = 0
        var encoderSaid = Dualcam_V1_EncoderStatus()
        while registry.summary(sessionID) == nil && !Task.isCancelled {
            try await clock.source.sleep(nanoseconds: 1_000_000_000)
            let sample = reporter.sample()
            try connection.send(.telemetry(sample.message))
            // The preset and a shortfall go when they change (§19), not every second.
            let counters = pipeline.stats.snapshot
            var encoder = Dualcam_V1_EncoderStatus()
            encoder.sessionID = sessionID
            encoder.preset = counters.preset
            encoder.shortfall = WireSentences.fitted([counters.encoderShortfall ?? ""])[0]
            if encoder != encoderSaid, !encoder.preset.isEmpty {
                try connection.send(.encoderStatus(encoder))
                encoderSaid = encoder
            }
            tick += 1
            if tick % options.telemetryLogSeconds == 0 { logger.info("\(sample.line)") }
        }
    }

    private func helloAck() -> Dualcam_V1_HelloAck {
        var ack = Dualcam_V1_HelloAck()
        ack.version = WireProtocol.version
        ack.software = Release.software("dualcam-agent")
        ack.nodeName = options.name
        ack.role = options.role
        var caps = Dualcam_V1_Capabilities()
        caps.videoCodecs = ["libx264", "libx265", "h264_v4l2m2m"]
        caps.sources = ["synthetic", "v4l2", "stdin"]
        let limits = SourceLimits.of(options.defaults)
        caps.maxWidth = UInt32(clamping: limits.maxWidth)
        caps.maxHeight = UInt32(clamping: limits.maxHeight)
        caps.maxFps = UInt32(clamping: limits.maxFramesPerSecond)
        caps.freeDiskBytes = UInt64(max(FreeSpace.bytes(at: options.spoolDirectory) ?? 0, 0))
        caps.sourceProblem = WireSentences.fitted([watch.problem ?? ""])[0]
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
        s.samples = UInt32(clamping: estimate.samplesUsed)
        s.roundTripNs = sample.delayNanoseconds
        s.referenceLocalNs = estimate.referenceLocalNanoseconds
        return s
    }

    /// One exchange into the clock, and the clock's new state to the coordinator.
    private func absorb(_ sample: ClockSample, path: ClockReplay.Path, _ c: Context) {
        clockLog?.write(sample, path: path)
        if let estimate = clock.add(sample) { try? c.connection.send(.clockStatus(status(estimate, sample: sample))) }
    }

    private func openClockLane(_ offer: Dualcam_V1_ClockLaneOffer, _ c: Context) {
        guard let localIP = c.localIP, let coordinatorIP = c.coordinatorIP else { return }
        do {
            let client = try ClockLaneClient(terms: ClockLaneTerms(offer), localIP: localIP, coordinatorIP: coordinatorIP,
                                             scopeID: c.scopeID,
                                             clock: { [clock] ago in clock.localNow(ago: ago) },
                                             onSample: { [self] sample in absorb(sample, path: .lane, c) })
            lane.withLockedValue { $0?.stop(); $0 = client }
            logger.info("clock lane: pinging the coordinator at udp \(coordinatorIP) port \(offer.port)")
        } catch {
            logger.warning("clock lane not opened (\(error)): the clock pings stay on the connection")
        }
    }

    /// Pings on the lane when there is one, and on the connection until the lane answers
    /// (and again whenever it stops answering, as when a firewall drops UDP).
    private func pingLoop(_ connection: AgentConnection) async throws {
        var id: UInt64 = 0
        while !Task.isCancelled {
            let onLane = lane.withLockedValue { $0 }
            if let onLane {
                do { try onLane.ping() } catch { logger.debug("clock lane: \(error)") }
            }
            if onLane?.isAnswering != true {
                id += 1
                var ping = Dualcam_V1_ClockPing()
                ping.id = id
                try connection.send(.clockPing(ping))
            }
            try await clock.source.sleep(nanoseconds: max(clock.nextPollInterval(), 10_000_000))
        }
    }

    private func wireError(_ code: Dualcam_V1_ErrorCode, _ message: String, sessionID: String = "") -> Dualcam_V1_Error {
        var error = Dualcam_V1_Error()
        error.code = code
        error.message = message
        error.fatal = false
        error.sessionID = sessionID
        return error
    }
}

/// The tasks a connection started, cancelled together when it ends.
final class TaskBag: Sendable {
    private let tasks = NIOLockedValueBox<[Task<Void, Never>]>([])

    func spawn(_ body: @escaping @Sendable () async throws -> Void) {
        let task = Task {
            do { try await body() } catch {}  // the connection's end is what stopped it
        }
        tasks.withLockedValue { all in
            all.removeAll { $0.isCancelled }
            all.append(task)
        }
    }

    func cancelAll() {
        for task in tasks.withLockedValue({ $0 }) { task.cancel() }
    }
}

/// Hands the connection to one segment transfer at a time, in arrival order.
actor UploadTurn {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
