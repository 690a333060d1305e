/// Turns N streams of timestamped frames into the composite's constant-rate ticks.
///
/// Tick `k` is at presentation time `rate.instant(ofFrame: k)`. Every frame belongs to the
/// tick nearest to it (its "cell", half a period either side), and per tick and stream
/// the nearest frame in that cell is shown; without one, the stream's last shown frame is
/// repeated for up to `repeatLimit` ticks, then the stream shows no signal. A stream's very
/// first frame, when it falls in the next tick's cell, is shown from this tick already.
///
/// It works live: a tick is emitted once every stream has either sent a frame of a later
/// cell or finished, or once the newest frame of any stream is more than the latency window
/// past it, so one stalled stream delays the composite by at most the window. Frames whose
/// tick has gone are dropped on arrival, so memory stays within about a window's worth of
/// frames per stream. Streams may run out of step with one another by up to the window;
/// within a stream frames are expected in order (a frame that arrives after a later one
/// has let its tick go is counted as dropped).
public struct FramePairer<Payload: Sendable>: Sendable {
    struct Candidate: Sendable {
        var cell: Int64
        var errorNanoseconds: Int64
        var payload: Payload
    }

    struct Stream: Sendable {
        /// Best frame per cell not yet emitted, by cell.
        var pending: [Candidate] = []
        /// The highest cell any of its frames fell in.
        var highestCell: Int64?
        var finished = false
        var lastShown: Payload?
        var repeatsSinceFresh = 0
        /// Any frame of it was shown yet.
        var started = false
    }

    public let streamCount: Int
    public let rate: FrameRate
    public let latencyWindowNanoseconds: Int64
    public let repeatLimit: Int
    /// Counts so far; the error distributions are filled in by `statistics`.
    var counts: PairingStatistics

    var streams: [Stream]
    /// The next tick to emit.
    public private(set) var nextTick: Int64 = 0
    var newestPresentation: Int64?
    /// Last tick to emit, once known (after `finishAll`, or every stream finished).
    var lastTick: Int64?
    var frameErrors = ErrorHistogram()
    var pairSpreads = ErrorHistogram()

    public init(streamCount: Int, rate: FrameRate, latencyWindowNanoseconds: Int64, repeatLimit: Int) {
        precondition(streamCount > 0, "at least one stream")
        precondition(latencyWindowNanoseconds >= 0 && repeatLimit >= 0, "negative window or repeat limit")
        self.streamCount = streamCount
        self.rate = rate
        self.latencyWindowNanoseconds = latencyWindowNanoseconds
        self.repeatLimit = repeatLimit
        self.streams = Array(repeating: Stream(), count: streamCount)
        self.counts = PairingStatistics(streamCount: streamCount)
    }

    /// The tick whose cell holds presentation time `t`, and `t` minus that tick's time.
    /// Ties (exactly half-way) go to the later tick.
    func cell(of t: Int64) -> (tick: Int64, error: Int64) {
        let after = rate.firstFrame(atOrAfter: t)
        let next = rate.instant(ofFrame: after), previous = rate.instant(ofFrame: after - 1)
        return next - t <= t - previous ? (after, t - next) : (after - 1, t - previous)
    }

    public mutating func push(stream s: Int, presentationNanoseconds t: Int64, payload: Payload) {
        precondition(streams.indices.contains(s), "no stream \(s)")
        counts.streams[s].framesReceived += 1
        let (tick, error) = cell(of: t)
        streams[s].highestCell = max(streams[s].highestCell ?? tick, tick)
        newestPresentation = max(newestPresentation ?? t, t)
        guard !streams[s].finished, tick >= nextTick, tick >= 0, tick <= (lastTick ?? Int64.max) else {
            drop(s)
            return
        }
        let candidate = Candidate(cell: tick, errorNanoseconds: error, payload: payload)
        // Frames nearly always arrive in order, so search from the end.
        var i = streams[s].pending.count
        while i > 0 && streams[s].pending[i - 1].cell > tick { i -= 1 }
        if i > 0 && streams[s].pending[i - 1].cell == tick {
            // Keep the nearer; on a tie, the one that came first.
            if error.magnitude < streams[s].pending[i - 1].errorNanoseconds.magnitude {
                streams[s].pending[i - 1] = candidate
            }
            drop(s)
        } else {
            streams[s].pending.insert(candidate, at: i)
        }
    }

    /// What happened so far: counts and the error distributions.
    public var statistics: PairingStatistics {
        var result = counts
        result.frameError = frameErrors.distribution
        result.pairSpread = pairSpreads.distribution
        return result
    }

    /// Frames waiting for their tick, over all streams (what the latency window bounds).
    public var pendingFrames: Int { streams.reduce(0) { $0 + $1.pending.count } }

    /// No more frames will come for stream `s`.
    public mutating func finish(stream s: Int) {
        streams[s].finished = true
        if lastTick == nil && streams.allSatisfy(\.finished) {
            lastTick = streams.compactMap(\.highestCell).max() ?? -1
        }
    }

    public mutating func finishAll() {
        finishAll(endPresentationNanoseconds: nil)
    }

    /// No more frames will come for any stream. With `endPresentationNanoseconds`, the
    /// composite ends there: ticks before it are all emitted (repeating or showing no
    /// signal where streams ended earlier), frames at or after it are dropped.
    public mutating func finishAll(endPresentationNanoseconds end: Int64?) {
        for s in streams.indices { streams[s].finished = true }
        if let end {
            lastTick = rate.firstFrame(atOrAfter: end) - 1
        } else if lastTick == nil {
            lastTick = streams.compactMap(\.highestCell).max() ?? -1
        }
        guard let last = lastTick else { return }
        for s in streams.indices {
            let beyond = streams[s].pending.filter { $0.cell > last }.count
            streams[s].pending.removeAll { $0.cell > last }
            for _ in 0..<beyond { drop(s) }
        }
    }

    /// Every tick that can be emitted now, in order.
    public mutating func drainReady() -> [OutputTick<Payload>] {
        var ticks: [OutputTick<Payload>] = []
        while isReady(nextTick) {
            ticks.append(emit(nextTick))
            nextTick += 1
        }
        return ticks
    }

    func isReady(_ k: Int64) -> Bool {
        if let last = lastTick { return k <= last }
        let tickTime = rate.instant(ofFrame: k)
        if let newest = newestPresentation, newest - tickTime > latencyWindowNanoseconds { return true }
        return streams.allSatisfy { $0.finished || ($0.highestCell ?? Int64.min) > k }
    }

    private mutating func emit(_ k: Int64) -> OutputTick<Payload> {
        var frames: [PairedFrame<Payload>] = []
        frames.reserveCapacity(streamCount)
        var earliest = Int64.max, latest = Int64.min
        let tickTime = rate.instant(ofFrame: k)
        for s in streams.indices {
            // Cells before k cannot be pending: they were emitted or dropped on arrival.
            if let first = streams[s].pending.first, first.cell == k {
                streams[s].pending.removeFirst()
                frames.append(.frame(first.payload, errorNanoseconds: first.errorNanoseconds))
                streams[s].lastShown = first.payload
                streams[s].repeatsSinceFresh = 0
                streams[s].started = true
                counts.streams[s].framesUsed += 1
                frameErrors.add(first.errorNanoseconds)
                earliest = min(earliest, tickTime + first.errorNanoseconds)
                latest = max(latest, tickTime + first.errorNanoseconds)
            } else if !streams[s].started, let next = streams[s].pending.first, next.cell == k + 1, next.errorNanoseconds < 0 {
                // A camera whose first frame comes less than a period after this tick (before
                // the next), but past its cell (a free-running sensor's phase), is shown from
                // this tick on:
                // a blank picture for one tick opened every free-run combined file. Its own
                // tick shows it again, fresh; the error said here is its true distance.
                let error = rate.instant(ofFrame: k + 1) + next.errorNanoseconds - tickTime
                frames.append(.frame(next.payload, errorNanoseconds: error))
                streams[s].started = true
                frameErrors.add(error)
                earliest = min(earliest, tickTime + error)
                latest = max(latest, tickTime + error)
            } else if let last = streams[s].lastShown, streams[s].repeatsSinceFresh < repeatLimit {
                frames.append(.repeated(last))
                streams[s].repeatsSinceFresh += 1
                counts.streams[s].repeats += 1
                counts.repeats += 1
            } else {
                frames.append(.noSignal)
                streams[s].lastShown = nil
                counts.streams[s].noSignal += 1
                counts.noSignal += 1
            }
        }
        let tick = OutputTick(index: k, presentationNanoseconds: tickTime, frames: frames)
        counts.ticks += 1
        if tick.isPair {
            counts.pairs += 1
            pairSpreads.add(latest - earliest)
        }
        return tick
    }

    private mutating func drop(_ s: Int) {
        counts.streams[s].droppedFrames += 1
        counts.droppedFrames += 1
    }
}
