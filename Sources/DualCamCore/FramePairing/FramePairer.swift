/// Turns N streams of timestamped frames into the composite's constant-rate ticks.
///
/// Tick `k` is written at presentation time `rate.instant(ofFrame: k)` and shows the
/// instant `rate.instant(ofFrame: k) + δ`, where the grid's offset δ (`GridPlacement`)
/// puts the ticks' half-way points in the widest gap between the cameras' phases: every
/// frame belongs to the tick nearest it on that grid (its "cell"), and per tick and stream
/// the nearest frame in that cell is shown, so the frames a tick puts together are the
/// closest the cameras allow (at most half a period apart for two free-running cameras at
/// the same rate). Genlocked cameras keep δ = 0, the fixed grid. Without a frame in its
/// cell, the stream's last shown frame is repeated for up to `repeatLimit` ticks, then the
/// stream shows no signal. A stream's very first frame, when it falls in the next tick's
/// cell, is shown from this tick already, with the other streams' frames nearest it.
///
/// It works live: a tick is emitted once every stream has either sent a frame of a later
/// cell or finished, or once the newest frame of any stream is more than the latency window
/// past it, so one stalled stream delays the composite by at most the window. Frames whose
/// tick has gone are dropped on arrival, so memory stays within about a window's worth of
/// frames per stream. Streams may run out of step with one another by up to the window;
/// within a stream frames are expected in order (a frame that arrives after a later one
/// has let its tick go is counted as dropped). δ is decided from frames up to the tick's
/// own cell, all of which are in when the tick is ready, so the ticks do not depend on how
/// the streams' arrivals interleave.
public struct FramePairer<Payload: Sendable>: Sendable {
    struct Candidate: Sendable {
        var time: Int64
        /// Arrival order within its stream: of two frames equally near, the first is kept.
        var id: Int64
        var payload: Payload
        /// Shown ahead of its own tick at a stream's start: not lost if its tick passes it over.
        var shownEarly = false
    }

    struct Stream: Sendable {
        /// Frames not yet shown or passed over, by time.
        var pending: [Candidate] = []
        /// The last frames that left `pending`, for the stream's phase.
        var recent: [Int64] = []
        var newest: Int64?
        var arrivals: Int64 = 0
        var finished = false
        var lastShown: Candidate?
        var repeatsSinceFresh = 0
        /// Any frame of it was shown yet.
        var started = false
    }

    /// Frames a stream's phase is taken from (their median, against jittery stamps).
    static var phaseFrames: Int { 5 }

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
    var meter: FramePhaseMeter
    let placement: GridPlacement
    var gap: GridPlacement.Gap?
    /// The grid's offset δ at the last tick emitted (0 before the first).
    public private(set) var gridOffsetNanoseconds: Int64 = 0

    public init(streamCount: Int, rate: FrameRate, latencyWindowNanoseconds: Int64, repeatLimit: Int) {
        precondition(streamCount > 0, "at least one stream")
        precondition(latencyWindowNanoseconds >= 0 && repeatLimit >= 0, "negative window or repeat limit")
        self.streamCount = streamCount
        self.rate = rate
        self.latencyWindowNanoseconds = latencyWindowNanoseconds
        self.repeatLimit = repeatLimit
        self.streams = Array(repeating: Stream(), count: streamCount)
        self.counts = PairingStatistics(streamCount: streamCount)
        self.meter = FramePhaseMeter(streamCount: streamCount, periodNanoseconds: rate.periodNanoseconds)
        self.placement = GridPlacement(periodNanoseconds: rate.periodNanoseconds)
    }

    /// The tick whose cell holds presentation time `t` on the fixed grid, and `t` minus
    /// that tick's time. Ties (exactly half-way) go to the later tick.
    func cell(of t: Int64) -> (tick: Int64, error: Int64) {
        let after = rate.firstFrame(atOrAfter: t)
        let next = rate.instant(ofFrame: after), previous = rate.instant(ofFrame: after - 1)
        return next - t <= t - previous ? (after, t - next) : (after - 1, t - previous)
    }

    /// The tick whose cell holds `t` on the grid placed at `offset`.
    func tick(of t: Int64, offset: Int64) -> Int64 { cell(of: t - offset).tick }

    public mutating func push(stream s: Int, presentationNanoseconds t: Int64, payload: Payload) {
        precondition(streams.indices.contains(s), "no stream \(s)")
        counts.streams[s].framesReceived += 1
        meter.frame(stream: s, at: t, phase: cell(of: t).error)
        streams[s].newest = max(streams[s].newest ?? t, t)
        newestPresentation = max(newestPresentation ?? t, t)
        let tick = tick(of: t, offset: gridOffsetNanoseconds)
        guard !streams[s].finished, tick >= nextTick, tick <= (lastTick ?? Int64.max) else {
            drop(s)
            return
        }
        let candidate = Candidate(time: t, id: streams[s].arrivals, payload: payload)
        streams[s].arrivals += 1
        // Frames nearly always arrive in order, so search from the end.
        var i = streams[s].pending.count
        while i > 0 && streams[s].pending[i - 1].time > t { i -= 1 }
        streams[s].pending.insert(candidate, at: i)
    }

    /// What happened so far: counts, the error distributions and the cameras' phase.
    public var statistics: PairingStatistics {
        var result = counts
        result.frameError = frameErrors.distribution
        result.pairSpread = pairSpreads.distribution
        result.phase = meter.phase
        return result
    }

    /// The cameras' phase so far (what `statistics` holds, without its other figures).
    public var phase: FramePhase { meter.phase }

    /// Frames waiting for their tick, over all streams (what the latency window bounds).
    public var pendingFrames: Int { streams.reduce(0) { $0 + $1.pending.count } }

    /// No more frames will come for stream `s`.
    public mutating func finish(stream s: Int) {
        streams[s].finished = true
        if lastTick == nil && streams.allSatisfy(\.finished) {
            lastTick = streams.compactMap { $0.newest.map { tick(of: $0, offset: gridOffsetNanoseconds) } }.max() ?? -1
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
            lastTick = streams.compactMap { $0.newest.map { tick(of: $0, offset: gridOffsetNanoseconds) } }.max() ?? -1
        }
        flushIfDone()
    }

    /// Every tick that can be emitted now, in order.
    public mutating func drainReady() -> [OutputTick<Payload>] {
        var ticks: [OutputTick<Payload>] = []
        while isReady(nextTick) {
            ticks.append(emit(nextTick))
            nextTick += 1
        }
        flushIfDone()
        return ticks
    }

    /// After the last tick, what is still waiting will never be shown.
    private mutating func flushIfDone() {
        guard let last = lastTick, nextTick > last else { return }
        for s in streams.indices {
            for _ in streams[s].pending { drop(s) }
            streams[s].pending.removeAll()
        }
    }

    func isReady(_ k: Int64) -> Bool {
        if let last = lastTick { return k <= last }
        let tickTime = rate.instant(ofFrame: k)
        if let newest = newestPresentation, newest - tickTime > latencyWindowNanoseconds { return true }
        // Every stream's frames up to tick k's own cell are in: δ can be decided.
        guard streams.allSatisfy({ $0.finished || $0.newest.map { cell(of: $0).tick > k } ?? false }) else { return false }
        let offset = placement.offset(for: phases(at: k), previous: gap).offsetNanoseconds
        let beyond = startsEarly(k, offset: offset) ? k + 1 : k
        return streams.allSatisfy { $0.finished || $0.newest.map { tick(of: $0, offset: offset) > beyond } ?? false }
    }

    /// Each stream's phase from its last frames up to tick `k`'s cell and the first one
    /// past it (all in once the tick is ready: frames come in order).
    func phases(at k: Int64) -> [GridPlacement.Phase] {
        let limit = rate.instant(ofFrame: k) + rate.periodNanoseconds / 2
        return streams.indices.compactMap { s -> GridPlacement.Phase? in
            var times = streams[s].recent + streams[s].pending.lazy.map(\.time).filter { $0 < limit }
            if let beyond = streams[s].pending.first(where: { $0.time >= limit }) { times.append(beyond.time) }
            guard let last = times.last else { return nil }
            let period = rate.periodNanoseconds
            let reference = cell(of: last).error
            let offsets = times.suffix(Self.phaseFrames)
                .map { reference + GridPlacement.wrapped(cell(of: $0).error - reference, period: period) }.sorted()
            let steady = offsets[offsets.count - 1] - offsets[0] <= period / 8
            return .init(stream: s, offsetNanoseconds: GridPlacement.wrapped(offsets[offsets.count / 2], period: period),
                         steady: steady)
        }
    }

    /// A stream that has shown nothing yet has no frame in tick `k`'s cell and its first
    /// in the next, before that tick: it is shown from this tick on.
    func startsEarly(_ k: Int64, offset: Int64) -> Bool {
        streams.indices.contains { firstEarly(stream: $0, tick: k, offset: offset) != nil }
    }

    /// `strictly`: only a first frame before the next tick's instant, the case of a lone
    /// camera; beside a camera that shows a picture at this tick, any in the next cell.
    private func firstEarly(stream s: Int, tick k: Int64, offset: Int64, strictly: Bool = false) -> Candidate? {
        guard !streams[s].started, let first = streams[s].pending.first(where: { tick(of: $0.time, offset: offset) >= k }),
              tick(of: first.time, offset: offset) == k + 1,
              !strictly || first.time < rate.instant(ofFrame: k + 1) + offset else { return nil }
        return first
    }

    /// The frame of stream `s` nearest `instant` among those in tick `k`'s cell.
    private func nearest(stream s: Int, tick k: Int64, offset: Int64, instant: Int64) -> Candidate? {
        var best: Candidate?
        for c in streams[s].pending where tick(of: c.time, offset: offset) == k {
            guard let b = best else { best = c; continue }
            let d = (c.time - instant).magnitude, bd = (b.time - instant).magnitude
            if d < bd || (d == bd && c.id < b.id) { best = c }
        }
        return best
    }

    /// Takes frames out of `pending`: those of cells before `k`, and `shown` (nil: none).
    /// Every other frame of cell `k` was beaten to it and is dropped.
    /// For a camera at another rate (`before`: the tick's instant), frames up to `shown`
    /// and those before the instant go instead: a later tick is nearer the others.
    private mutating func settle(stream s: Int, tick k: Int64, offset: Int64, shown: Candidate?, before: Int64? = nil) {
        func passed(_ c: Candidate) -> Bool {
            guard let before else { return tick(of: c.time, offset: offset) <= k }
            return c.time < before || c.time <= (shown?.time ?? Int64.min)
        }
        while let first = streams[s].pending.first, passed(first) {
            streams[s].pending.removeFirst()
            streams[s].recent.append(first.time)
            if first.id != shown?.id && !first.shownEarly { drop(s) }
        }
        if streams[s].recent.count > Self.phaseFrames { streams[s].recent.removeFirst(streams[s].recent.count - Self.phaseFrames) }
    }

    private mutating func emit(_ k: Int64) -> OutputTick<Payload> {
        let phases = phases(at: k)
        let placed = placement.offset(for: phases, previous: gap)
        let offset = placed.offsetNanoseconds
        gap = placed.gap
        gridOffsetNanoseconds = offset
        let tickTime = rate.instant(ofFrame: k)
        let instant = tickTime + offset
        let unsteady = Set(phases.filter { !$0.steady }.map(\.stream))
        let own = streams.indices.map { s -> Candidate? in
            // A camera at another rate has no cell of its own on this grid: its frame
            // nearest the instant, unless that is the one shown already.
            guard unsteady.contains(s) else { return nearest(stream: s, tick: k, offset: offset, instant: instant) }
            let ahead = streams[s].pending.filter { tick(of: $0.time, offset: offset) <= k + 1 }
            guard let best = ahead.min(by: { ($0.time - instant).magnitude < ($1.time - instant).magnitude }) else { return nil }
            if let last = streams[s].lastShown, (last.time - instant).magnitude < (best.time - instant).magnitude { return nil }
            return best
        }
        var early = streams.indices.map { own[$0] == nil ? firstEarly(stream: $0, tick: k, offset: offset, strictly: true) : nil }
        if streams.indices.contains(where: { own[$0] != nil || early[$0] != nil }) {
            early = streams.indices.map { own[$0] == nil ? firstEarly(stream: $0, tick: k, offset: offset) : nil }
        }
        // With a stream starting early, the others show their frame nearest its (theirs of
        // the next tick when that is nearer, shown again fresh at that tick).
        let earlyInstants = early.compactMap { $0?.time }
        var ahead: [Candidate?] = Array(repeating: nil, count: streamCount)
        if let first = earlyInstants.min(), let last = earlyInstants.max() {
            let target = first + (last - first) / 2
            let nextInstant = rate.instant(ofFrame: k + 1) + offset
            for s in streams.indices where early[s] == nil {
                guard let mine = own[s], let next = nearest(stream: s, tick: k + 1, offset: offset, instant: nextInstant),
                      (next.time - target).magnitude < (mine.time - target).magnitude else { continue }
                ahead[s] = next
            }
        }
        // A camera that has ended (its last frame came more than half its period before the
        // stop) is held on that frame; the others are held with it where their own frame
        // is further from it than their last, so the file's end is no worse a pair than
        // the rest: the mirror of the start.
        let heldAt = streams.indices.compactMap { s -> Int64? in
            guard streams[s].finished, own[s] == nil, early[s] == nil, streams[s].pending.isEmpty,
                  streams[s].repeatsSinceFresh < repeatLimit else { return nil }
            return streams[s].lastShown?.time
        }
        var held = Array(repeating: false, count: streamCount)
        if let first = heldAt.min(), let last = heldAt.max() {
            let target = first + (last - first) / 2
            for s in streams.indices where streams[s].repeatsSinceFresh < repeatLimit {
                guard let mine = own[s], let shown = streams[s].lastShown,
                      (shown.time - target).magnitude < (mine.time - target).magnitude else { continue }
                held[s] = true
            }
        }
        var frames: [PairedFrame<Payload>] = []
        frames.reserveCapacity(streamCount)
        var shownInstants: [Int64?] = []
        var earliest = Int64.max, latest = Int64.min
        for s in streams.indices {
            var fresh: Candidate?
            if let next = early[s] ?? ahead[s] {
                // Shown ahead of its own tick, where it is shown again as fresh; the frame
                // of this tick (if any) is passed over.
                fresh = next
                if let i = streams[s].pending.firstIndex(where: { $0.id == next.id }) { streams[s].pending[i].shownEarly = true }
                settle(stream: s, tick: k, offset: offset, shown: nil)
            } else if let mine = own[s], !held[s] {
                fresh = mine
                settle(stream: s, tick: k, offset: offset, shown: mine, before: unsteady.contains(s) ? instant : nil)
                streams[s].lastShown = mine
                streams[s].repeatsSinceFresh = 0
                counts.streams[s].framesUsed += 1
            } else {
                settle(stream: s, tick: k, offset: offset, shown: nil, before: unsteady.contains(s) ? instant : nil)
            }
            if let fresh {
                frames.append(.frame(fresh.payload, errorNanoseconds: fresh.time - tickTime))
                streams[s].started = true
                frameErrors.add(fresh.time - instant)
                earliest = min(earliest, fresh.time)
                latest = max(latest, fresh.time)
                shownInstants.append(fresh.time)
            } else if let last = streams[s].lastShown, streams[s].repeatsSinceFresh < repeatLimit {
                frames.append(.repeated(last.payload))
                streams[s].repeatsSinceFresh += 1
                counts.streams[s].repeats += 1
                counts.repeats += 1
                shownInstants.append(last.time)
            } else {
                frames.append(.noSignal)
                streams[s].lastShown = nil
                counts.streams[s].noSignal += 1
                counts.noSignal += 1
                shownInstants.append(nil)
            }
        }
        let output = OutputTick(index: k, presentationNanoseconds: tickTime, frames: frames, gridOffsetNanoseconds: offset)
        counts.ticks += 1
        meter.tick(shownInstants)
        if output.isPair {
            counts.pairs += 1
            pairSpreads.add(latest - earliest)
        }
        return output
    }

    private mutating func drop(_ s: Int) {
        counts.streams[s].droppedFrames += 1
        counts.droppedFrames += 1
    }
}
