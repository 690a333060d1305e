/// Decides which of the combined file's ticks to keep a small copy of, for the session's
/// contact sheet, while the session records and its length is unknown: every tick at
/// first, then, each time more than `capacity` are held, every other one of those, and
/// from then on ticks twice as far apart. What is held is always evenly spread over what
/// was recorded so far, never more than `capacity` + 1 pictures, and scaling one picture
/// now and then costs the recording nothing at stop.
public struct FrameSampler: Sendable {
    public let capacity: Int
    /// Ticks between kept pictures now.
    public private(set) var interval: Int64 = 1
    public private(set) var kept: [Int64] = []

    public init(capacity: Int = 24) {
        precondition(capacity >= 2, "a sampler keeps at least two pictures")
        self.capacity = capacity
    }

    /// Whether the picture of `tick` is to be kept.
    public func wants(tick: Int64) -> Bool { tick >= 0 && tick % interval == 0 && kept.last.map { tick > $0 } ?? true }

    /// Notes that `tick`'s picture is kept; returns the ticks whose pictures can be let go.
    public mutating func keep(tick: Int64) -> [Int64] {
        kept.append(tick)
        guard kept.count > capacity else { return [] }
        interval *= 2
        let dropped = kept.filter { $0 % interval != 0 }
        kept.removeAll { $0 % interval != 0 }
        return dropped
    }

    /// `count` of the kept ticks, evenly spread (all of them when fewer are kept).
    public func pick(_ count: Int) -> [Int64] {
        guard kept.count > count, count > 0 else { return kept }
        return (0..<count).map { kept[($0 * 2 + 1) * kept.count / (2 * count)] }
    }
}
