import NIOCore
@testable import DualCamProtocol

/// An agent and a coordinator state machine joined back to back through the real framing,
/// with a shared fake clock: what one side sends, the other receives on `pump`.
struct MachinePair {
    var agent: AgentConnectionStateMachine
    var coordinator: CoordinatorConnectionStateMachine
    var now: Int64 = 1_000_000_000
    var toAgent = ByteBuffer()
    var toCoordinator = ByteBuffer()
    var agentEvents: [AgentEvent] = []
    var coordinatorEvents: [CoordinatorEvent] = []
    var agentClosed: ProtocolError?? = .none
    var coordinatorClosed: ProtocolError?? = .none

    init(window: UInt64 = 0, timeouts: ConnectionTimeouts = .init()) {
        var hello = Envelopes.hello(window: window)
        hello.version = Dualcam_V1_ProtocolVersion()  // filled in by the machine
        var ackConfig = AgentConnectionStateMachine.Configuration(helloAck: Envelopes.helloAck(), timeouts: timeouts)
        ackConfig.helloAck.version = Dualcam_V1_ProtocolVersion()
        agent = AgentConnectionStateMachine(configuration: ackConfig, now: now)
        coordinator = CoordinatorConnectionStateMachine(
            configuration: .init(hello: hello, timeouts: timeouts), now: now)
    }

    mutating func route(agentActions: [AgentConnectionStateMachine.Action]) throws {
        for a in agentActions {
            switch a {
            case .send(let e): try EnvelopeFrameEncoder().encode(data: e, out: &toCoordinator)
            case .deliver(let ev): agentEvents.append(ev)
            case .close(let err): agentClosed = .some(err)
            }
        }
    }

    mutating func route(coordinatorActions: [CoordinatorConnectionStateMachine.Action]) throws {
        for a in coordinatorActions {
            switch a {
            case .send(let e): try EnvelopeFrameEncoder().encode(data: e, out: &toAgent)
            case .deliver(let ev): coordinatorEvents.append(ev)
            case .close(let err): coordinatorClosed = .some(err)
            }
        }
    }

    /// Delivers everything in flight, both ways, until nothing is left.
    mutating func pump() throws {
        while toAgent.readableBytes > 0 || toCoordinator.readableBytes > 0 {
            while try deliverOneToAgent() {}
            while try deliverOneToCoordinator() {}
        }
    }

    /// Delivers the oldest frame in flight to the agent; false when there is none.
    mutating func deliverOneToAgent() throws -> Bool {
        var decoder = EnvelopeFrameDecoder()
        guard let e = try decoder.decode(buffer: &toAgent) else { return false }
        try route(agentActions: agent.receive(e, now: now))
        return true
    }

    mutating func deliverOneToCoordinator() throws -> Bool {
        var decoder = EnvelopeFrameDecoder()
        guard let e = try decoder.decode(buffer: &toCoordinator) else { return false }
        try route(coordinatorActions: coordinator.receive(e, now: now))
        return true
    }

    mutating func agentSends(_ body: Dualcam_V1_Envelope.OneOf_Body, inReplyTo: UInt64 = 0) throws {
        let e = try agent.send(body, inReplyTo: inReplyTo, now: now)
        try EnvelopeFrameEncoder().encode(data: e, out: &toCoordinator)
    }

    mutating func coordinatorSends(_ body: Dualcam_V1_Envelope.OneOf_Body) throws {
        let e = try coordinator.send(body, now: now)
        try EnvelopeFrameEncoder().encode(data: e, out: &toAgent)
    }

    mutating func connect() throws {
        try route(coordinatorActions: coordinator.start(now: now))
        try pump()
    }

    /// Connects and takes `session` through Prepare and Ready to StartAt (sent, not yet
    /// delivered).
    mutating func startRecording(_ session: String) throws {
        try connect()
        try coordinatorSends(.prepare(Envelopes.prepare(session)))
        try pump()
        try agentSends(.ready(Envelopes.ready(session)))
        try pump()
        try coordinatorSends(.startAt(Envelopes.startAt(session)))
    }

    /// Advances the clock and fires both sides' timers.
    mutating func advance(by ns: Int64) throws {
        now += ns
        try route(agentActions: agent.tick(now: now))
        try route(coordinatorActions: coordinator.tick(now: now))
    }
}
