/// What waits to go out to one streaming destination, and what it gives up when the
/// uplink is slower than the programme (issue 33). Newest wins: when the backlog would
/// pass its limit (in bytes, or in programme time from its oldest packet), everything
/// queued is dropped and the stream resumes at the next key
/// frame (a picture after a gap would not decode), so a slow or stalled uplink costs the
/// stream pictures, never the recording, and never grows without bound. Pure; the sender
/// pushes packets as the programme is encoded and pops them as the network takes them.
public struct StreamBacklog<Item> {
    public struct Entry {
        public var item: Item
        public var bytes: Int
        public var isVideo: Bool
        public var isKeyframe: Bool
        /// The packet's instant on the programme's clock (nil: not told).
        public var at: Int64?
    }

    public let limitBytes: Int
    /// How far behind the newest packet the oldest queued one may fall (nil: no limit).
    /// Bytes alone are not enough: a programme far under its ceiling (the demo's 640x360
    /// sends a third of it) on an uplink of 100 kbit/s queued 19 s before the byte limit
    /// was reached.
    public let limitNanoseconds: Int64?
    private var entries: [Entry] = []
    private var head = 0
    public private(set) var queuedBytes = 0
    /// Until a video key frame comes, nothing is taken (the start, and after a drop).
    public private(set) var waitingForKeyframe = true
    /// Video frames given up: never sent because the backlog was full or a key frame awaited.
    public private(set) var droppedVideoFrames = 0

    public init(limitBytes: Int, limitNanoseconds: Int64? = nil) {
        precondition(limitBytes > 0 && (limitNanoseconds ?? 1) > 0)
        self.limitBytes = limitBytes
        self.limitNanoseconds = limitNanoseconds
    }

    public var isEmpty: Bool { head == entries.count }
    public var count: Int { entries.count - head }

    /// `at`: the packet's instant on the programme's clock, for `limitNanoseconds`.
    public mutating func push(_ item: Item, bytes: Int, video: Bool, keyframe: Bool, at: Int64? = nil) {
        if queuedBytes + bytes > limitBytes { dropAll() }
        if let limitNanoseconds, let at, head < entries.count, let oldest = entries[head].at, at - oldest > limitNanoseconds {
            dropAll()
        }
        if waitingForKeyframe {
            guard video && keyframe else {
                if video { droppedVideoFrames += 1 }
                return
            }
            waitingForKeyframe = false
        }
        entries.append(Entry(item: item, bytes: bytes, isVideo: video, isKeyframe: keyframe, at: at))
        queuedBytes += bytes
    }

    public mutating func pop() -> Item? {
        guard head < entries.count else { return nil }
        let entry = entries[head]
        head += 1
        queuedBytes -= entry.bytes
        if head > 256 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return entry.item
    }

    /// Drops what is queued and waits for the next key frame (a new connection starts there).
    public mutating func dropAll() {
        droppedVideoFrames += entries[head...].filter(\.isVideo).count
        entries.removeAll(keepingCapacity: true)
        head = 0
        queuedBytes = 0
        waitingForKeyframe = true
    }
}

/// When a lost stream is tried again: 1, 2, 4, 8, 16 s, then every 30 s, from the first
/// failure after it was last live. Platforms refuse a key or go down for minutes; a
/// stream must come back on its own without hammering them.
public struct StreamBackoff: Sendable, Equatable {
    public private(set) var failures = 0

    public init() {}

    /// The wait before the next try, having just failed.
    public mutating func failed() -> Double {
        failures += 1
        return min(30, Double(1 << min(failures - 1, 5)))
    }

    /// Live again: the next failure waits a second.
    public mutating func connected() { failures = 0 }
}
