/// Keeps a take's encoder inside what the node can carry while it records (`--preset
/// auto`): fed the wall time every frame took to encode and the capture queue's depth, it
/// decides at each segment boundary (where every segment starts with an IDR anyway, so a
/// new encoder costs no gap) whether to step to a faster preset, or back towards the one
/// chosen at Prepare once the headroom has been back for a while. A queue that fills (or
/// frames lost) cannot wait for the boundary: the capture queue holds a fraction of a
/// second, so `isUrgent` asks the caller to decide now and cut a segment early.
///
/// Pure: time comes in as values (the agent's monotonic nanoseconds).
public struct PresetGovernor: Sendable {
    public struct Settings: Sendable {
        /// Mean encode time over the frame period above which the node is falling behind.
        public var busyLimit = 0.85
        /// A step faster aims for a load at or under this (1 / PresetChoice.headroom).
        public var targetLoad = 1 / PresetChoice.headroom
        /// A step back must predict a load this low at the slower preset...
        public var calmLoad = 0.55
        /// ...over every segment of this long...
        public var calmNanoseconds: Int64 = 10_000_000_000
        /// ...and no sooner than this after the last step faster.
        public var holdNanoseconds: Int64 = 20_000_000_000
        /// A queue this full (of its capacity) at any moment means the encoder lags.
        public var queueLimit = 0.5
        /// Speed ratio between neighbouring presets where none was measured (x264 at
        /// zerolatency: 1.2-1.6 between neighbours from ultrafast to medium here).
        public var unmeasuredStep = 1.3
        public init() {}
    }

    public enum Decision: Sendable, Equatable {
        case keep
        /// Reopen the encoder with `preset` for the segment that starts now.
        case switchTo(preset: String, reason: String)
    }

    public let rate: FrameRate
    public let settings: Settings
    /// The preset chosen at Prepare: a step back never goes beyond it.
    public let chosen: String
    public private(set) var current: String
    /// Measured frames per second per preset (from Prepare), for predicting a switch.
    private let speeds: [String: Double]
    private var window = Window()
    /// Consecutive calm time at the current preset, and when it last stepped faster.
    private var calmSince: Int64?
    private var lastStepFaster: Int64?
    /// What the governor says about the node when even the fastest preset lags; nil otherwise.
    public private(set) var shortfall: String?
    /// The load behind `shortfall` (encode time over the frame period).
    public private(set) var shortfallLoad: Double?

    private struct Window {
        var frames = 0
        var busyNanoseconds: Int64 = 0
        /// Of `busyNanoseconds`, what no preset changes (`frameEncoded`'s `fixedNanoseconds`).
        var fixedNanoseconds: Int64 = 0
        var peakQueueFraction = 0.0
        var firstQueueFraction: Double?
        var lastQueueFraction = 0.0
        var drops = 0
        /// The longest a frame waited from capture to encoded.
        var peakLatencyNanoseconds: Int64 = 0

        /// Full past the limit and still filling: a backlog left by a slower preset that
        /// the current one is draining is no reason to step again.
        func queueLags(limit: Double) -> Bool {
            peakQueueFraction >= limit && lastQueueFraction > (firstQueueFraction ?? 0)
        }
    }

    /// Frames a window needs before its load means anything; also how many of the latest
    /// frames tell the load now (a budget cut mid-segment shows there long before the
    /// segment's mean).
    static let minimumFrames = 8
    private var recent: [Int64] = []

    public init(chosen: String, rate: FrameRate, speeds: [PresetSpeed], settings: Settings = Settings()) {
        self.chosen = chosen
        self.current = chosen
        self.rate = rate
        self.settings = settings
        self.speeds = Dictionary(speeds.map { ($0.preset, $0.framesPerSecond) }, uniquingKeysWith: { a, _ in a })
    }

    /// One frame went through the encoder in `encodeNanoseconds` of wall time, with the
    /// capture queue `queueDepth` deep out of `queueCapacity`, `latencyNanoseconds` after
    /// its capture. A CPU quota stalls capture and encoder together and lets frames
    /// through in bursts, each encoded fast: their latency shows the stall their encode
    /// time hides. `fixedNanoseconds`: work the frame cost besides the encode that no
    /// preset changes (the live composite's decoding of every camera and its compositing):
    /// it counts in the load, and a switch's prediction scales only the rest.
    public mutating func frameEncoded(encodeNanoseconds: Int64, fixedNanoseconds: Int64 = 0, queueDepth: Int, queueCapacity: Int,
                                      latencyNanoseconds: Int64 = 0) {
        let fixed = max(0, fixedNanoseconds)
        window.frames += 1
        window.peakLatencyNanoseconds = max(window.peakLatencyNanoseconds, latencyNanoseconds)
        window.busyNanoseconds += max(0, encodeNanoseconds) + fixed
        window.fixedNanoseconds += fixed
        recent.append(max(0, encodeNanoseconds) + fixed)
        if recent.count > Self.minimumFrames { recent.removeFirst() }
        if queueCapacity > 0 {
            let fraction = Double(queueDepth) / Double(queueCapacity)
            window.peakQueueFraction = max(window.peakQueueFraction, fraction)
            if window.firstQueueFraction == nil { window.firstQueueFraction = fraction }
            window.lastQueueFraction = fraction
        }
    }

    /// The encoder is losing ground fast enough that waiting for the segment boundary
    /// would lose frames: decide now (the caller cuts a segment where it switches).
    public var isUrgent: Bool {
        guard PresetChoice.neighbour(of: current, faster: true) != nil, window.frames >= Self.minimumFrames else { return false }
        return window.drops > 0 || window.queueLags(limit: settings.queueLimit)
    }

    /// Frames the capture side lost because the encoder's queue was full.
    public mutating func framesLost(_ count: Int) {
        window.drops += max(0, count)
    }

    /// Encode time over the frame period: the window's mean, or the latest frames' when
    /// higher (0 with no frames).
    public var load: Double {
        guard window.frames > 0 else { return 0 }
        let mean = Double(window.busyNanoseconds) / Double(window.frames)
        let latest = recent.isEmpty ? 0 : Double(recent.reduce(0, +)) / Double(recent.count)
        return max(mean, latest) / Double(rate.periodNanoseconds)
    }

    /// Called where a segment ends and the next begins, at local instant `now`.
    public mutating func segmentBoundary(now: Int64) -> Decision {
        let observed = window
        let load = self.load
        window = Window()
        guard observed.frames > 0 else { return .keep }
        let lagging = load > settings.busyLimit || observed.drops > 0 || observed.queueLags(limit: settings.queueLimit)
        if lagging {
            calmSince = nil
            guard let target = fasterTarget(load: load, fixedShare: fixedShare(observed)) else {
                // Drops or a full queue at a load it carries: a backlog draining, not a shortfall.
                if load > settings.busyLimit {
                    shortfall = "even \(current) needs \(percent(load)) of each frame's time"
                    shortfallLoad = load
                } else {
                    (shortfall, shortfallLoad) = (nil, nil)
                }
                return .keep
            }
            (shortfall, shortfallLoad) = (nil, nil)
            lastStepFaster = now
            let from = current
            current = target
            var why = "the encoder needed \(percent(load)) of each frame's time at \(from)"
            if observed.drops > 0 { why += ", \(observed.drops) frames lost" }
            if observed.queueLags(limit: settings.queueLimit) { why += ", its queue \(percent(observed.peakQueueFraction)) full" }
            return .switchTo(preset: target, reason: why)
        }
        (shortfall, shortfallLoad) = (nil, nil)
        guard current != chosen, let slower = PresetChoice.neighbour(of: current, faster: false) else { return .keep }
        let predicted = predict(load, from: current, to: slower, fixedShare: fixedShare(observed))
        // A frame that waited two periods means the node stalled: not calm, whatever the load.
        guard predicted <= settings.calmLoad, observed.peakLatencyNanoseconds < 2 * rate.periodNanoseconds else {
            calmSince = nil
            return .keep
        }
        let since = calmSince ?? now
        calmSince = since
        let held = lastStepFaster.map { now - $0 >= settings.holdNanoseconds } ?? true
        guard held, now - since >= settings.calmNanoseconds else { return .keep }
        calmSince = nil
        current = slower
        return .switchTo(preset: slower, reason: "the encoder has needed \(percent(load)) of each frame's time for "
                                                 + "\((now - since) / 1_000_000_000) s; back to \(slower)")
    }

    /// The slowest preset faster than the current one predicted to bring the load to the
    /// target; the fastest if none does; nil when already at the fastest.
    private func fasterTarget(load: Double, fixedShare: Double) -> String? {
        guard let firstFaster = PresetChoice.neighbour(of: current, faster: true) else { return nil }
        var candidate = firstFaster
        while predict(load, from: current, to: candidate, fixedShare: fixedShare) > settings.targetLoad,
              let next = PresetChoice.neighbour(of: candidate, faster: true) {
            candidate = next
        }
        return candidate
    }

    /// The load at preset `b` of a window that had `load` at `a`, of which `fixedShare` no
    /// preset changes.
    public func predict(_ load: Double, from a: String, to b: String, fixedShare: Double) -> Double {
        load * ((1 - fixedShare) * ratio(from: a, to: b) + fixedShare)
    }

    private func fixedShare(_ window: Window) -> Double {
        window.busyNanoseconds > 0 ? Double(window.fixedNanoseconds) / Double(window.busyNanoseconds) : 0
    }

    /// How a frame's encode time scales from preset `a` to `b`: measured where both were,
    /// else `unmeasuredStep` per rung of the ladder.
    public func ratio(from a: String, to b: String) -> Double {
        if let sa = speeds[a], let sb = speeds[b], sa > 0, sb > 0 { return sa / sb }
        let ia = PresetChoice.ladder.firstIndex(of: a) ?? 0
        let ib = PresetChoice.ladder.firstIndex(of: b) ?? 0
        var r = 1.0
        for _ in 0..<abs(ib - ia) { r *= settings.unmeasuredStep }
        return ib > ia ? r : 1 / r
    }

    private func percent(_ value: Double) -> String { "\(Int((value * 100).rounded())) %" }
}
