/// What the I/O shell of a connection drives, whichever side it is: both sides' rules
/// live in these machines, and the shell (DualCamNet's `ProtocolConnection`) only
/// performs the actions they return. There is no other implementation of the protocol.
public protocol ConnectionStateMachine: Sendable {
    associatedtype Event: Sendable
    associatedtype State: Sendable, Hashable

    var state: State { get }
    /// When `tick` should next be called; nil once closed.
    var nextDeadline: Int64? { get }

    /// The connection is up: what to send first (a coordinator's Hello; nothing for an agent).
    mutating func start(now: Int64) -> [ConnectionAction<Event>]
    mutating func receive(_ envelope: Dualcam_V1_Envelope, now: Int64) -> [ConnectionAction<Event>]
    /// The envelope to write for `body`, or a thrown error (changing nothing) when the
    /// message is not allowed now.
    mutating func send(_ body: Dualcam_V1_Envelope.OneOf_Body, inReplyTo: UInt64, now: Int64) throws(ProtocolError)
        -> Dualcam_V1_Envelope
    mutating func tick(now: Int64) -> [ConnectionAction<Event>]
    mutating func close(with error: ProtocolError, now: Int64) -> [ConnectionAction<Event>]
}

extension AgentConnectionStateMachine: ConnectionStateMachine {
    /// An agent speaks only once spoken to.
    public mutating func start(now: Int64) -> [Action] { [] }
}

extension CoordinatorConnectionStateMachine: ConnectionStateMachine {}
