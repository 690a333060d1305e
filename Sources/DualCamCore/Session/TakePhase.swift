/// A take's phase as screens see it: the studio's JSON carries the raw value (one word,
/// docs/STUDIO.md), a text screen says `words`. Switched over rather than compared with
/// display words, so a phase added here is a compile error in every screen that must
/// show it.
public enum TakePhase: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case idle
    case syncing
    case preparing
    case countdown
    case recording
    case stopping
    case finalising
    case done
    case cancelled
    case failed

    /// As the terminal and the error messages write it.
    public var words: String {
        switch self {
        case .syncing: "syncing clocks"
        case .countdown: "counting down"
        default: rawValue
        }
    }

    /// Frames were recorded (or are being): stopping now finishes a take rather than
    /// cancelling it.
    public var hasRecorded: Bool {
        switch self {
        case .recording, .stopping, .finalising: true
        default: false
        }
    }

    /// Nothing more will happen to a take in this phase.
    public var isOver: Bool {
        switch self {
        case .done, .cancelled, .failed: true
        default: false
        }
    }
}

extension TakeMachine.Phase {
    /// The phase without its instants.
    public var kind: TakePhase {
        switch self {
        case .idle: .idle
        case .syncing: .syncing
        case .preparing: .preparing
        case .countingDown: .countdown
        case .recording: .recording
        case .stopping: .stopping
        case .finalising: .finalising
        case .done: .done
        case .cancelled: .cancelled
        case .failed: .failed
        }
    }
}
