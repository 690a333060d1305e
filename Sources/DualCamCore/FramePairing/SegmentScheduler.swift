/// Decides when the composite may take each camera's segments, so that a camera whose
/// segments are late (a lost connection, an agent restarting) holds the composite back
/// instead of being shown as "no signal" for frames that do exist and will arrive.
///
/// Segments of one stream are released in index order. A segment is released once every
/// other stream still awaited has made known what it holds up to the segment's start:
/// its arrived segments reach that far. Streams no longer awaited (finished, or given up
/// on) hold nothing back, so the composite flows on without them. Across streams,
/// releases come in order of first presentation time, so the pairer sees time advance
/// evenly. Only paths wait here, never decoded pictures: a long outage costs no memory.
public struct SegmentScheduler: Sendable {
    public struct Segment: Sendable, Equatable {
        public var stream: Int
        public var index: Int
        public var firstPresentationNanoseconds: Int64
        public var durationNanoseconds: Int64

        public init(stream: Int, index: Int, firstPresentationNanoseconds: Int64, durationNanoseconds: Int64) {
            self.stream = stream
            self.index = index
            self.firstPresentationNanoseconds = firstPresentationNanoseconds
            self.durationNanoseconds = durationNanoseconds
        }

        var end: Int64 { firstPresentationNanoseconds + durationNanoseconds }
    }

    private struct StreamState {
        var waiting: [Int: Segment] = [:]
        var nextIndex = 0
        var awaited = true
        var releasedEnd = Int64.min
    }

    private var streams: [StreamState]

    public init(streamCount: Int) {
        streams = Array(repeating: StreamState(), count: streamCount)
    }

    public mutating func arrived(_ segment: Segment) {
        guard streams.indices.contains(segment.stream), segment.index >= streams[segment.stream].nextIndex else { return }
        streams[segment.stream].waiting[segment.index] = segment
    }

    /// A stream that has delivered everything, or that the session no longer waits for.
    public mutating func stopAwaiting(stream: Int) {
        guard streams.indices.contains(stream) else { return }
        streams[stream].awaited = false
    }

    /// Marks a stream awaited again (it came back after being given up on).
    public mutating func await(stream: Int) {
        guard streams.indices.contains(stream) else { return }
        streams[stream].awaited = true
    }

    /// Segments that may go to the composite now, in the order to feed them.
    public mutating func release() -> [Segment] {
        var out: [Segment] = []
        while let next = nextReleasable() {
            streams[next.stream].waiting[next.index] = nil
            streams[next.stream].nextIndex = next.index + 1
            streams[next.stream].releasedEnd = max(streams[next.stream].releasedEnd, next.end)
            out.append(next)
        }
        return out
    }

    /// Everything still waiting, in presentation order, skipping missing indices: for
    /// the end of a session, when nothing more will come.
    public mutating func releaseAll() -> [Segment] {
        for s in streams.indices { streams[s].awaited = false }
        var out = release()
        var rest = streams.flatMap { $0.waiting.values }
        rest.sort { ($0.firstPresentationNanoseconds, $0.stream, $0.index) < ($1.firstPresentationNanoseconds, $1.stream, $1.index) }
        for s in streams.indices { streams[s].waiting = [:] }
        out += rest
        return out
    }

    /// Held segments, for status reporting.
    public var waitingCount: Int { streams.reduce(0) { $0 + $1.waiting.count } }

    /// How far a stream has made known what it holds: the end of its released segments
    /// and of the contiguous run waiting after them.
    private func horizon(_ s: Int) -> Int64 {
        var end = streams[s].releasedEnd
        var index = streams[s].nextIndex
        while let segment = streams[s].waiting[index] {
            end = max(end, segment.end)
            index += 1
        }
        return end
    }

    private func nextReleasable() -> Segment? {
        let heads = streams.indices.compactMap { streams[$0].waiting[streams[$0].nextIndex] }
        guard let head = heads.min(by: {
            ($0.firstPresentationNanoseconds, $0.stream) < ($1.firstPresentationNanoseconds, $1.stream)
        }) else { return nil }
        for (s, other) in streams.enumerated() where s != head.stream && other.awaited {
            if horizon(s) < head.firstPresentationNanoseconds { return nil }
        }
        return head
    }
}
