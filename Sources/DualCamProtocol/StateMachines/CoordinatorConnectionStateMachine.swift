/// One coordinator-side connection, without I/O: `start` it, feed it what arrives
/// (`receive`), what the application wants to send (`send`) and the passage of time
/// (`tick`); do what the returned actions say. Answers ClockPings by itself.
/// Rules are those of Protocol/PROTOCOL.md, "Coordinator states".
public struct CoordinatorConnectionStateMachine: Sendable {
    public typealias Action = ConnectionAction<CoordinatorEvent>

    public enum State: Sendable, Hashable {
        case notStarted
        case awaitingHelloAck
        case established(SessionPhase)
        case closed
    }

    public struct Configuration: Sendable {
        /// Sent by `start`; its version is overwritten.
        public var hello: Dualcam_V1_Hello
        public var timeouts: ConnectionTimeouts
        /// How long the agent may take from Prepare to Ready (opening a camera and
        /// warming up an encoder can take seconds).
        public var readyTimeoutNanoseconds: Int64 = 30_000_000_000

        public init(hello: Dualcam_V1_Hello, timeouts: ConnectionTimeouts = .init()) {
            self.hello = hello
            self.timeouts = timeouts
        }
    }

    private let configuration: Configuration
    private var core: ConnectionCore
    private var started = false
    private var phase: SessionPhase?
    private var readyDeadline: Int64?
    private var ingest: IngestWindow
    /// The phase's session was taken up with Resume (§8.6): an Error
    /// ERROR_SEGMENT_UNAVAILABLE naming it (the agent holds nothing of it) ends it.
    private var following = false
    private var forgets = ForgetRequests()
    private var cameraRequests = CameraRequests()

    public init(configuration: Configuration, now: Int64) {
        self.configuration = configuration
        core = ConnectionCore(timeouts: configuration.timeouts, now: now)
        ingest = IngestWindow(capacity: WireProtocol.uploadWindow(announced: configuration.hello.uploadWindowBytes))
    }

    public var state: State {
        if core.closed { return .closed }
        if let phase { return .established(phase) }
        return started ? .awaitingHelloAck : .notStarted
    }

    /// Segment bytes received and not yet acknowledged; the agent may send up to
    /// `uploadWindowCapacity` of them.
    public var uploadBytesInFlight: UInt64 { ingest.inFlight }
    public var uploadWindowCapacity: UInt64 { ingest.capacity }

    /// When `tick` should next be called.
    public var nextDeadline: Int64? {
        guard let d = core.nextDeadline else { return nil }
        return readyDeadline.map { min($0, d) } ?? d
    }

    /// Sends Hello; call once, as soon as the connection is up.
    public mutating func start(now: Int64) -> [Action] {
        guard !started, !core.closed else { return [] }
        started = true
        var hello = configuration.hello
        hello.version = WireProtocol.version
        return [.send(core.envelope(.hello(hello), now: now))]
    }

    // MARK: Inbound

    public mutating func receive(_ envelope: Dualcam_V1_Envelope, now: Int64) -> [Action] {
        guard !core.closed else { return [] }
        do {
            try core.noteInbound(envelope, now: now)
        } catch {
            return core.fail(error, inReplyTo: envelope.sequence, now: now)
        }
        guard let body = envelope.body else { return [] }
        if case .error(let e) = body {
            return receiveError(e, envelope: envelope, now: now)
        }
        if let actions = core.handleCommon(body, peerError: CoordinatorEvent.peerError) { return actions }
        do throws(ProtocolError) {
            guard let phase else { return try receiveHelloAck(body, now: now) }
            return try receiveEstablished(body, phase: phase, envelope: envelope, now: now)
        } catch {
            return core.fail(error, inReplyTo: envelope.sequence, now: now)
        }
    }

    private mutating func receiveError(_ error: Dualcam_V1_Error, envelope: Dualcam_V1_Envelope, now: Int64) -> [Action] {
        var e = error
        e.message = WireIdentifier.printable(e.message)
        if !e.sessionID.isEmpty, WireIdentifier.problem(e.sessionID, what: "Error session_id") != nil {
            return core.fail(ProtocolError(.badMessage, "Error with an invalid session_id"), inReplyTo: envelope.sequence, now: now)
        }
        do throws(ProtocolError) {
            try MessageValidation.checkFits(e.fits)
        } catch {
            return core.fail(error, inReplyTo: envelope.sequence, now: now)
        }
        if envelope.inReplyTo != 0 { ingest.requestDeclined(inReplyTo: envelope.inReplyTo) }
        if following, e.code == .errorSegmentUnavailable, envelope.inReplyTo == 0,
           case .recording(let id)? = phase, id == e.sessionID {
            phase = .idle
            following = false
        }
        // An Error naming the session being prepared is the agent's refusal of Prepare.
        if !e.sessionID.isEmpty, case .preparing(let id)? = phase, id == e.sessionID {
            phase = .idle
            readyDeadline = nil
            var actions: [Action] = [.deliver(.prepareFailed(e))]
            if e.fatal { actions += core.closeQuietly(ProtocolError(.peerError, "agent refused Prepare \(id): \(e.message)")) }
            return actions
        }
        return core.handleCommon(.error(e), peerError: CoordinatorEvent.peerError) ?? []
    }

    private mutating func receiveHelloAck(_ body: Dualcam_V1_Envelope.OneOf_Body, now: Int64) throws(ProtocolError) -> [Action] {
        guard started, case .helloAck(let ack) = body else {
            throw ProtocolError(.badState, "\(body.name) before HelloAck; the agent must answer Hello first")
        }
        if let mismatch = WireProtocol.checkCompatible(peer: ack.version) {
            throw ProtocolError(.versionMismatch, mismatch)
        }
        try MessageValidation.checkHelloAck(ack)
        core.handshakeDeadline = nil
        phase = .idle
        return [.deliver(.connected(ack))]
    }

    private mutating func receiveEstablished(
        _ body: Dualcam_V1_Envelope.OneOf_Body, phase: SessionPhase, envelope: Dualcam_V1_Envelope, now: Int64
    ) throws(ProtocolError) -> [Action] {
        switch body {
        case .clockPing(let ping):
            // t2 is when the ping arrived, t3 when the pong leaves; a shell that can stamp
            // closer to the socket may overwrite t3 just before writing.
            var pong = Dualcam_V1_ClockPong()
            pong.id = ping.id
            pong.t1Ns = ping.t1Ns
            pong.t2Ns = now
            pong.t3Ns = now
            return [.send(core.envelope(.clockPong(pong), inReplyTo: envelope.sequence, now: now))]

        case .clockStatus(let status):
            try MessageValidation.checkClockStatus(status)
            return [.deliver(.clockStatus(status))]

        case .telemetry(let telemetry):
            try MessageValidation.checkTelemetry(telemetry)
            return [.deliver(.telemetry(telemetry))]

        case .sourceStatus(let status):
            // Any phase: a camera can go or come back at any time (§4.1).
            try MessageValidation.checkSourceStatus(status)
            var shown = status
            shown.problem = WireIdentifier.printable(status.problem, maxCharacters: WireSentences.maxBytes)
            return [.deliver(.sourceStatus(shown))]

        case .encoderStatus(let status):
            try MessageValidation.checkEncoderStatus(status)
            var checked = status
            checked.shortfall = WireIdentifier.printable(status.shortfall)
            return [.deliver(.encoderStatus(checked))]

        case .previewFrame(let frame):
            try MessageValidation.checkPreviewFrame(frame)
            return [.deliver(.previewFrame(frame))]

        case .sessionForgotten(let answer):
            try forgets.answer(answer)
            var shown = answer
            shown.reason = WireIdentifier.printable(answer.reason, maxCharacters: WireSentences.maxBytes)
            return [.deliver(.sessionForgotten(shown))]

        case .cameraState(let state):
            try cameraRequests.answer(state)
            return [.deliver(.cameraState(CameraMessageValidation.printable(state)))]

        case .ready(let ready):
            try MessageValidation.checkReady(ready)
            guard case .preparing(let id) = phase, id == ready.sessionID else {
                throw ProtocolError(.badState, "Ready for \(ready.sessionID) while \(describe(phase)); Ready answers Prepare")
            }
            self.phase = .ready(sessionID: id)
            readyDeadline = nil
            return [.deliver(.ready(ready))]

        case .recordingFinished(let finished):
            try MessageValidation.checkRecordingFinished(finished)
            switch phase {
            case .recording(let id), .stopping(let id):
                guard id == finished.sessionID else { fallthrough }
                self.phase = .idle
                following = false
                return [.deliver(.recordingFinished(finished))]
            default:
                throw ProtocolError(.badState, "RecordingFinished for \(finished.sessionID) while \(describe(phase))")
            }

        case .segmentOffer(let offer):
            guard try ingest.offer(offer, inReplyTo: envelope.inReplyTo) else { return [] }
            return [.deliver(.segmentOffered(offer))]

        case .segmentData(let data):
            switch try ingest.receive(data) {
            case .deliver: return [.deliver(.segmentData(data))]
            case .discard: return []
            }

        case .helloAck:
            throw ProtocolError(.badState, "second HelloAck on one connection")

        case .hello, .clockPong, .prepare, .startAt, .stop, .segmentAck, .segmentRequest, .resume, .shutdown,
             .previewRequest, .forgetSession, .cameraRequest, .clockLaneOffer:
            throw ProtocolError(.badMessage, "\(body.name) is sent by coordinators, not to them")

        case .pairRequest, .pairShare, .pairConfirm, .pairResult:
            throw ProtocolError(.badState, "\(body.name) on a paired connection; pairing has its own connection (§14)")

        case .keepalive, .error:
            return []  // handled before
        }
    }

    // MARK: Outbound

    /// Validates a message the application wants to send and returns the envelope to
    /// write. Throws (changing nothing) when the message is not allowed now: that is a
    /// bug in the caller, not a fault of the peer.
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
        switch body {
        case .keepalive, .error, .shutdown:
            break
        case .previewRequest(let request):
            try MessageValidation.checkPreviewRequest(request)
        case .clockLaneOffer(let offer):
            try MessageValidation.checkClockLaneOffer(offer)
        case .forgetSession(let request):
            try forgets.ask(request, phase: phase)
        case .cameraRequest(let request):
            try cameraRequests.ask(request)
        case .prepare(let prepare):
            guard phase == .idle else {
                throw ProtocolError(.badState, "Prepare for \(prepare.sessionID) while \(describe(phase))")
            }
            try MessageValidation.checkPrepare(prepare)
            self.phase = .preparing(sessionID: prepare.sessionID)
            following = false
            readyDeadline = now &+ configuration.readyTimeoutNanoseconds
        case .startAt(let start):
            guard case .ready(let id) = phase, id == start.sessionID else {
                throw ProtocolError(.badState, "StartAt for \(start.sessionID) while \(describe(phase)); wait for Ready")
            }
            try MessageValidation.checkStartAt(start)
            self.phase = .recording(sessionID: id)
        case .stop(let stop):
            switch phase {
            case .preparing(let id), .ready(let id), .recording(let id), .stopping(let id):
                guard id == stop.sessionID else { fallthrough }
                self.phase = .stopping(sessionID: id)
                readyDeadline = nil
            default:
                throw ProtocolError(.badState, "Stop for \(stop.sessionID) while \(describe(phase))")
            }
        case .segmentAck(let ack):
            try ingest.acknowledge(ack)
        case .segmentRequest(let request):
            // The request's own sequence is what the answering offer will echo.
            try ingest.request(request, sequence: core.nextSequence)
        case .resume(let resume):
            // A session that went on without this connection is followed again (§8.6).
            try MessageValidation.checkSessionID(resume.sessionID)
            if phase == .idle {
                self.phase = .recording(sessionID: resume.sessionID)
                following = true
            }
        case .hello, .helloAck, .clockPing, .clockPong, .clockStatus, .ready, .segmentOffer, .segmentData,
             .recordingFinished, .telemetry, .previewFrame, .sessionForgotten, .cameraState, .encoderStatus, .sourceStatus:
            throw ProtocolError(.badMessage, "coordinators do not send \(body.name)")
        case .pairRequest, .pairShare, .pairConfirm, .pairResult:
            throw ProtocolError(.badState, "\(body.name) belongs on a pairing connection (§14)")
        }
        return finishSend(body, inReplyTo: inReplyTo, now: now)
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

    /// Sends keepalives, enforces the handshake and idle timeouts, reports a late Ready.
    public mutating func tick(now: Int64) -> [Action] {
        var actions: [Action] = core.tick(now: now)
        if !core.closed, let deadline = readyDeadline, now >= deadline, case .preparing(let id)? = phase {
            readyDeadline = nil
            actions.append(.deliver(.readyTimedOut(sessionID: id)))
        }
        return actions
    }

    private func describe(_ phase: SessionPhase) -> String {
        guard let id = phase.sessionID else { return "idle" }
        return "\(phase.name) session \(id)"
    }
}
