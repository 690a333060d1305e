/// What one stream contributes to one output tick.
public enum PairedFrame<Payload: Sendable>: Sendable {
    /// A frame of this tick's own, `errorNanoseconds` = its presentation time minus the tick's.
    case frame(Payload, errorNanoseconds: Int64)
    /// The stream's last shown frame again: its frame for this tick is missing.
    case repeated(Payload)
    /// Nothing to show: the stream has not started, or has been missing for too long.
    case noSignal

    public var payload: Payload? {
        switch self {
        case .frame(let p, _), .repeated(let p): return p
        case .noSignal: return nil
        }
    }

    public var isFresh: Bool {
        if case .frame = self { return true }
        return false
    }
}

/// One frame of the composite: tick `index` at presentation time `presentationNanoseconds`,
/// with one entry per stream, in stream order.
public struct OutputTick<Payload: Sendable>: Sendable {
    public let index: Int64
    public let presentationNanoseconds: Int64
    public let frames: [PairedFrame<Payload>]
    /// The grid's offset at this tick (`GridPlacement`): its pictures stand for the instant
    /// `presentationNanoseconds + gridOffsetNanoseconds`, which is where the cameras'
    /// frames fall closest together.
    public let gridOffsetNanoseconds: Int64

    public init(index: Int64, presentationNanoseconds: Int64, frames: [PairedFrame<Payload>], gridOffsetNanoseconds: Int64 = 0) {
        self.index = index
        self.presentationNanoseconds = presentationNanoseconds
        self.frames = frames
        self.gridOffsetNanoseconds = gridOffsetNanoseconds
    }

    /// Every stream had a frame of its own for this tick.
    public var isPair: Bool { frames.allSatisfy(\.isFresh) }
}
