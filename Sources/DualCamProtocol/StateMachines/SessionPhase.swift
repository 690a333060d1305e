/// Where one connection stands in the prepare → ready → record → stop cycle.
/// Both sides use the same phases; PROTOCOL.md shows which message moves between them.
public enum SessionPhase: Sendable, Hashable {
    /// No session: a Prepare may come.
    case idle
    /// Prepare sent/received; the agent is opening its source and encoder.
    case preparing(sessionID: String)
    /// Ready sent/received; waiting for StartAt.
    case ready(sessionID: String)
    /// StartAt sent/received.
    case recording(sessionID: String)
    /// Stop sent/received; waiting for RecordingFinished.
    case stopping(sessionID: String)

    public var sessionID: String? {
        switch self {
        case .idle: nil
        case .preparing(let id), .ready(let id), .recording(let id), .stopping(let id): id
        }
    }

    var name: String {
        switch self {
        case .idle: "idle"
        case .preparing: "preparing"
        case .ready: "ready"
        case .recording: "recording"
        case .stopping: "stopping"
        }
    }
}

/// Identifies one segment across connections.
public struct SegmentKey: Sendable, Hashable, CustomStringConvertible {
    public var sessionID: String
    public var index: UInt32

    public init(sessionID: String, index: UInt32) {
        self.sessionID = sessionID
        self.index = index
    }

    public var description: String { "\(sessionID)#\(index)" }
}
