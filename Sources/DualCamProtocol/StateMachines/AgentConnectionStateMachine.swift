/// One agent-side connection, without I/O: feed it what arrives (`receive`), what the
/// application wants to send (`send`) and the passage of time (`tick`); do what the
/// returned actions say. Rules are those of Protocol/PROTOCOL.md, "Agent states".
public struct AgentConnectionStateMachine: Sendable {
    public typealias Action = ConnectionAction<AgentEvent>

    public enum State: Sendable, Hashable {
        case awaitingHello
        case established(SessionPhase)
        case closed
    }

    public struct Configuration: Sendable {
        /// Sent automatically in answer to an acceptable Hello; its version is overwritten.
        public var helloAck: Dualcam_V1_HelloAck
        public var timeouts: ConnectionTimeouts

        public init(helloAck: Dualcam_V1_HelloAck, timeouts: ConnectionTimeouts = .init()) {
            self.helloAck = helloAck
            self.timeouts = timeouts
        }
    }

    private let configuration: Configuration
    private var core: ConnectionCore
    private var phase: SessionPhase?
    /// The session that ended last, so a Stop that crossed its RecordingFinished is no fault.
    private var lastEndedSessionID: String?
    /// The phase's session was taken up by Resume (§8.6), not started here: an Error
    /// ERROR_SEGMENT_UNAVAILABLE naming it (the agent holds nothing of it) ends it.
    private var following = false
    private var uploads = UploadWindow(capacity: WireProtocol.defaultUploadWindowBytes)
    private var pings = OutstandingPings()
    private var forgets = ForgetRequests()
    private var cameraRequests = CameraRequests()

    /// Starts at the moment the (authenticated) connection is up.
    public init(configuration: Configuration, now: Int64) {
        self.configuration = configuration
        core = ConnectionCore(timeouts: configuration.timeouts, now: now)
    }

    public var state: State {
        if core.closed { return .closed }
        return phase.map(State.established) ?? .awaitingHello
    }

    /// Bytes of SegmentData that may be sent now without exceeding the window.
    public var uploadWindowAvailable: UInt64 { uploads.available }
    public var uploadWindowCapacity: UInt64 { uploads.capacity }
    /// When `tick` should next be called.
    public var nextDeadline: Int64? { core.nextDeadline }

    // MARK: Inbound

    public mutating func receive(_ envelope: Dualcam_V1_Envelope, now: Int64) -> [Action] {
        guard !core.closed else { return [] }
        do {
            try core.noteInbound(envelope, now: now)
        } catch {
            return core.fail(error, inReplyTo: envelope.sequence, now: now)
        }
        // A body this build does not know comes from a newer minor version: ignore it.
        guard let body = envelope.body else { return [] }
        if let actions = core.handleCommon(body, peerError: AgentEvent.peerError) { return actions }
        do throws(ProtocolError) {
            guard let phase else { return try receiveHello(body, envelope: envelope, now: now) }
            return try receiveEstablished(body, phase: phase, envelope: envelope, now: now)
        } catch {
            return core.fail(error, inReplyTo: envelope.sequence, now: now)
        }
    }

    private mutating func receiveHello(
        _ body: Dualcam_V1_Envelope.OneOf_Body, envelope: Dualcam_V1_Envelope, now: Int64
    ) throws(ProtocolError) -> [Action] {
        guard case .hello(let hello) = body else {
            throw ProtocolError(.badState, "\(body.name) before Hello; the coordinator must send Hello first")
        }
        if let mismatch = WireProtocol.checkCompatible(peer: hello.version) {
            throw ProtocolError(.versionMismatch, mismatch)
        }
        try MessageValidation.checkHello(hello)
        core.handshakeDeadline = nil
        phase = .idle
        uploads = UploadWindow(capacity: WireProtocol.uploadWindow(announced: hello.uploadWindowBytes))
        var ack = configuration.helloAck
        ack.version = WireProtocol.version
        return [
            .send(core.envelope(.helloAck(ack), inReplyTo: envelope.sequence, now: now)),
            .deliver(.connected(hello)),
        ]
    }

    private mutating func receiveEstablished(
        _ body: Dualcam_V1_Envelope.OneOf_Body, phase: SessionPhase, envelope: Dualcam_V1_Envelope, now: Int64
    ) throws(ProtocolError) -> [Action] {
        switch body {
        case .prepare(let prepare):
            try MessageValidation.checkPrepare(prepare)
            guard phase == .idle else {
                throw ProtocolError(.badState, "Prepare for \(prepare.sessionID) while \(phase.name) session \(phase.sessionID ?? "")")
            }
            self.phase = .preparing(sessionID: prepare.sessionID)
            following = false
            return [.deliver(.prepare(prepare))]

        case .startAt(let start):
            try MessageValidation.checkStartAt(start)
            guard case .ready(let id) = phase, id == start.sessionID else {
                throw ProtocolError(.badState, "StartAt for \(start.sessionID) while \(describe(phase)); StartAt must follow Ready")
            }
            self.phase = .recording(sessionID: id)
            return [.deliver(.startAt(start))]

        case .stop(let stop):
            try MessageValidation.checkStop(stop)
            switch phase {
            case .preparing(let id), .ready(let id), .recording(let id), .stopping(let id):
                guard id == stop.sessionID else {
                    throw ProtocolError(.badState, "Stop for \(stop.sessionID) while \(describe(phase))")
                }
                self.phase = .stopping(sessionID: id)
                return [.deliver(.stop(stop))]
            case .idle:
                // It crossed our RecordingFinished: the session is already over.
                if stop.sessionID == lastEndedSessionID { return [] }
                throw ProtocolError(.badState, "Stop for \(stop.sessionID) while idle")
            }

        case .clockPong(let pong):
            guard let sample = pings.received(pong, at: now) else { return [] }
            return [.deliver(.clockSample(sample))]

        case .segmentAck(let ack):
            try MessageValidation.checkSegmentAck(ack)
            var actions: [Action] = [.deliver(.segmentAck(ack))]
            if try uploads.acknowledge(ack) {
                actions.append(.deliver(.uploadWindowOpened(availableBytes: uploads.available)))
            }
            return actions

        case .segmentRequest(let request):
            try MessageValidation.checkSegmentRequest(request)
            var actions: [Action] = [.deliver(.segmentRequested(request, requestSequence: envelope.sequence))]
            if try uploads.request(request, sequence: envelope.sequence) {
                actions.append(.deliver(.uploadWindowOpened(availableBytes: uploads.available)))
            }
            return actions

        case .resume(let resume):
            try MessageValidation.checkResume(resume)
            switch phase {
            case .idle:
                self.phase = .recording(sessionID: resume.sessionID)
                following = true
            case .recording(let id), .stopping(let id):
                guard id == resume.sessionID else { fallthrough }
            default:
                throw ProtocolError(.badState, "Resume for \(resume.sessionID) while \(describe(phase))")
            }
            return [.deliver(.resume(resume))]

        case .shutdown(let shutdown):
            return [.deliver(.shutdown(shutdown))]

        case .previewRequest(let request):
            // Any phase: the operator watches before, during and between takes.
            try MessageValidation.checkPreviewRequest(request)
            return [.deliver(.previewRequest(request))]

        case .forgetSession(let request):
            try forgets.ask(request, phase: phase)
            return [.deliver(.forgetSession(request))]

        case .cameraRequest(let request):
            try cameraRequests.ask(request)
            return [.deliver(.cameraRequest(request))]

        case .clockLaneOffer(let offer):
            // Any phase: the lane only carries clock exchanges (§20).
            try MessageValidation.checkClockLaneOffer(offer)
            return [.deliver(.clockLaneOffered(offer))]

        case .hello:
            throw ProtocolError(.badState, "second Hello on one connection")

        case .helloAck, .clockPing, .clockStatus, .ready, .segmentOffer, .segmentData,
             .recordingFinished, .telemetry, .previewFrame, .sessionForgotten, .cameraState, .encoderStatus, .sourceStatus:
            throw ProtocolError(.badMessage, "\(body.name) is sent by agents, not to them")

        case .pairRequest, .pairShare, .pairConfirm, .pairResult:
            throw ProtocolError(.badState, "\(body.name) on a paired connection; pairing has its own connection (§14)")

        case .keepalive, .error:
            return []  // handled by ConnectionCore.handleCommon
        }
    }

    // MARK: Outbound

    /// Validates a message the application wants to send and returns the envelope to
    /// write. Throws (changing nothing) when the message is not allowed now: that is a
    /// bug in the caller, not a fault of the peer.
    ///
    /// `inReplyTo` is the sequence of the envelope being answered; for a SegmentOffer
    /// answering a SegmentRequest it is filled in automatically.
    public mutating func send(
        _ body: Dualcam_V1_Envelope.OneOf_Body, inReplyTo: UInt64 = 0, now: Int64
    ) throws(ProtocolError) -> Dualcam_V1_Envelope {
        guard !core.closed else { throw ProtocolError(.closed, "connection is closed") }
        guard let phase else {
            switch body {
            case .keepalive, .error: return finishSend(body, inReplyTo: inReplyTo, now: now)
            default: throw ProtocolError(.badState, "cannot send \(body.name) before the handshake")
            }
        }
        var replyTo = inReplyTo
        switch body {
        case .clockPing(let ping):
            try pings.sent(ping)
        case .clockStatus, .telemetry, .keepalive:
            break
        case .encoderStatus(let status):
            try MessageValidation.checkEncoderStatus(status)
        case .sourceStatus(let status):
            try MessageValidation.checkSourceStatus(status)
        case .previewFrame(let frame):
            try MessageValidation.checkPreviewFrame(frame)
        case .sessionForgotten(let answer):
            try forgets.answer(answer)
        case .cameraState(let state):
            try cameraRequests.answer(state)
        case .ready(let ready):
            guard case .preparing(let id) = phase, id == ready.sessionID else {
                throw ProtocolError(.badState, "Ready for \(ready.sessionID) while \(describe(phase))")
            }
            self.phase = .ready(sessionID: id)
        case .recordingFinished(let finished):
            switch phase {
            case .recording(let id), .stopping(let id):
                guard id == finished.sessionID else { fallthrough }
                self.phase = .idle
                lastEndedSessionID = id
            default:
                throw ProtocolError(.badState, "RecordingFinished for \(finished.sessionID) while \(describe(phase))")
            }
        case .error(let error):
            // An Error naming the session being prepared is the refusal of that Prepare.
            if case .preparing(let id) = phase, id == error.sessionID {
                self.phase = .idle
                lastEndedSessionID = id
            }
            // Resume of a session this agent holds nothing of: the answer ends it here.
            if following, error.code == .errorSegmentUnavailable, replyTo == 0,
               case .recording(let id) = phase, id == error.sessionID {
                self.phase = .idle
                lastEndedSessionID = id
                following = false
            }
            if replyTo != 0 { uploads.declineRequest(inReplyTo: replyTo) }
        case .segmentOffer(let offer):
            let requested = try uploads.offer(offer)
            if requested != 0 { replyTo = requested }
        case .segmentData(let data):
            try uploads.send(data)
        case .hello, .helloAck, .clockPong, .prepare, .startAt, .stop, .segmentAck, .segmentRequest, .resume, .shutdown,
             .previewRequest, .forgetSession, .cameraRequest, .clockLaneOffer:
            throw ProtocolError(.badMessage, "agents do not send \(body.name)")
        case .pairRequest, .pairShare, .pairConfirm, .pairResult:
            throw ProtocolError(.badState, "\(body.name) belongs on a pairing connection (§14)")
        }
        return finishSend(body, inReplyTo: replyTo, now: now)
    }

    private mutating func finishSend(
        _ body: Dualcam_V1_Envelope.OneOf_Body, inReplyTo: UInt64, now: Int64
    ) -> Dualcam_V1_Envelope {
        let envelope = core.envelope(body, inReplyTo: inReplyTo, now: now)
        if case .error(let e) = body, e.fatal { core.markClosed() }
        return envelope
    }

    /// Ends the connection because of a local failure: tells the peer, then closes.
    public mutating func close(with error: ProtocolError, now: Int64) -> [Action] {
        core.fail(error, now: now)
    }

    // MARK: Time

    /// Sends keepalives and enforces the handshake and idle timeouts.
    public mutating func tick(now: Int64) -> [Action] {
        core.tick(now: now)
    }

    private func describe(_ phase: SessionPhase) -> String {
        guard let id = phase.sessionID else { return "idle" }
        return "\(phase.name) session \(id)"
    }
}
