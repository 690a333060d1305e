/// Pairs the frames of N streams onto the composite's constant-rate grid, live.
///
/// Tick k is at `rate.instant(ofFrame: k)`. Each stream contributes the frame nearest the
/// tick within half a period (windows [t - P/2, t + P/2) never overlap, so no frame is
/// shown twice as fresh); without one it repeats its last frame up to `repeatLimit`
/// ticks, then shows "no signal". A tick is released once every stream has moved past
/// it (a frame at or beyond t + P/2, or the stream finished), or once any stream is more
/// than `latencyWindowNanoseconds` ahead of it, so a stalled camera delays the composite
/// by at most the window. Frames are assumed to arrive in presentation order per stream
/// (segments arrive in order); a frame older than an already released tick is dropped.
/// Memory is bounded by the frames within the latency window.
public struct FramePairer<Payload: Sendable>: Sendable {
    struct Stream: Sendable {
        var pending: [(pts: Int64, payload: Payload)] = []
        var head = 0
        var finished = false
        var last: Payload?
        var ticksSinceFresh = 0
        var newestPts: Int64?
    }

    public let rate: FrameRate
    public let latencyWindowNanoseconds: Int64
    public let repeatLimit: Int
    private var streams: [Stream]
    private var nextTick: Int64 = 0
    private var endTick: Int64?
    private var newestSeen: Int64 = .min
    public private(set) var statistics: PairingStatistics

    public init(streamCount: Int, rate: FrameRate, latencyWindowNanoseconds: Int64, repeatLimit: Int) {
        precondition(streamCount >= 1, "a composite needs at least one stream")
        self.rate = rate
        self.latencyWindowNanoseconds = latencyWindowNanoseconds
        self.repeatLimit = repeatLimit
        streams = Array(repeating: Stream(), count: streamCount)
        statistics = PairingStatistics(streamCount: streamCount, maxErrorNanoseconds: rate.periodNanoseconds / 2)
    }

    private var half: Int64 { rate.periodNanoseconds / 2 }
    private func tickInstant(_ k: Int64) -> Int64 { rate.instant(ofFrame: k) }

    public mutating func push(stream s: Int, presentationNanoseconds pts: Int64, payload: Payload) {
        if pts < tickInstant(nextTick) - half || streams[s].finished {
            statistics.droppedFrames += 1
            return
        }
        if let newest = streams[s].newestPts, pts <= newest {
            // Duplicate or out-of-order timestamp: the earlier frame keeps its place.
            statistics.droppedFrames += 1
            return
        }
        streams[s].pending.append((pts, payload))
        streams[s].newestPts = pts
        newestSeen = max(newestSeen, pts)
    }

    public mutating func finish(stream s: Int) {
        streams[s].finished = true
        if endTick == nil, streams.allSatisfy(\.finished) { endTick = naturalEnd() }
    }

    /// Ends every stream; ticks continue up to (excluding) `endPresentationNanoseconds`
    /// when given, else up to the last frame of the longest stream.
    public mutating func finishAll(endPresentationNanoseconds end: Int64? = nil) {
        for s in streams.indices { streams[s].finished = true }
        endTick = end.map { rate.firstFrame(atOrAfter: $0) } ?? naturalEnd()
    }

    private func naturalEnd() -> Int64 {
        guard newestSeen != .min else { return 0 }
        return rate.firstFrame(atOrAfter: newestSeen - half + 1)
    }

    private func isReady(_ k: Int64) -> Bool {
        if let end = endTick, k >= end { return false }
        let t = tickInstant(k)
        if newestSeen != .min, newestSeen - t > latencyWindowNanoseconds { return true }
        return streams.allSatisfy { s in s.finished || (s.newestPts ?? .min) >= t + half }
    }

    /// Every tick that can be decided now, in order.
    public mutating func drainReady() -> [OutputTick<Payload>] {
        var out: [OutputTick<Payload>] = []
        while isReady(nextTick) {
            out.append(emit(nextTick))
            nextTick += 1
        }
        return out
    }

    private mutating func emit(_ k: Int64) -> OutputTick<Payload> {
        let t = tickInstant(k)
        var sources: [TickSource<Payload>] = []
        var fresh = 0
        for s in streams.indices {
            var best: (index: Int, error: Int64)?
            var i = streams[s].head
            while i < streams[s].pending.count, streams[s].pending[i].pts < t + half {
                let error = streams[s].pending[i].pts - t
                if error >= -half, best == nil || abs(error) < abs(best!.error) { best = (i, error) }
                i += 1
            }
            // Everything before t + P/2 is consumed: shown now, or never.
            let consumed = i - streams[s].head
            if let best {
                let payload = streams[s].pending[best.index].payload
                sources.append(.frame(payload, errorNanoseconds: best.error))
                streams[s].last = payload
                streams[s].ticksSinceFresh = 0
                statistics.recordError(best.error)
                statistics.freshFramesPerStream[s] += 1
                statistics.droppedFrames += consumed - 1
                fresh += 1
            } else {
                statistics.droppedFrames += consumed
                if let last = streams[s].last, streams[s].ticksSinceFresh < repeatLimit {
                    sources.append(.repeated(last))
                    streams[s].ticksSinceFresh += 1
                    statistics.repeats += 1
                } else {
                    sources.append(.noSignal)
                    statistics.noSignal += 1
                }
            }
            streams[s].head = i
            if streams[s].head > 64 && streams[s].head * 2 > streams[s].pending.count {
                streams[s].pending.removeFirst(streams[s].head)
                streams[s].head = 0
            }
        }
        statistics.ticks += 1
        if fresh == streams.count { statistics.pairs += 1 }
        return OutputTick(index: k, presentationNanoseconds: t, streams: sources)
    }
}
