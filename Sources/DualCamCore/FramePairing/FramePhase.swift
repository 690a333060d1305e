/// Camera phase, as distinct from clock error: where each camera's frames were really
/// captured (their stamps on the shared clock) against the take's frame grid and against
/// each other. A perfect clock does not line free-running cameras up; this says how far
/// apart the pictures that the combined file puts together were.
public struct FramePhase: Sendable, Hashable, Encodable {
    /// Magnitudes over a take: median, 95th percentile and maximum.
    public struct Figures: Sendable, Hashable, Encodable {
        public var count: Int
        public var medianNanoseconds: Int64
        public var p95Nanoseconds: Int64
        public var maxNanoseconds: Int64

        public init(count: Int, medianNanoseconds: Int64, p95Nanoseconds: Int64, maxNanoseconds: Int64) {
            self.count = count
            self.medianNanoseconds = medianNanoseconds
            self.p95Nanoseconds = p95Nanoseconds
            self.maxNanoseconds = maxNanoseconds
        }

        init(_ histogram: ErrorHistogram) {
            self.init(count: histogram.count, medianNanoseconds: histogram.quantile(0.5),
                      p95Nanoseconds: histogram.quantile(0.95), maxNanoseconds: histogram.maximum)
        }
    }

    /// One camera against the grid: how far its frames were from the nearest tick, and how
    /// fast that moved (its frame rate against the shared clock's; 0 for a genlocked one).
    public struct Camera: Sendable, Hashable, Encodable {
        public var stream: Int
        public var grid: Figures
        /// Signed: its frames came this much later each minute.
        public var driftNanosecondsPerMinute: Double
    }

    /// Two cameras in the combined picture: on every tick where both showed a picture
    /// (fresh or repeated), the difference between the two pictures' capture instants.
    public struct Pair: Sendable, Hashable, Encodable {
        public var streams: [Int]
        public var apart: Figures
        /// How fast the two cameras' phases moved apart (the first's drift minus the second's).
        public var driftNanosecondsPerMinute: Double
    }

    public var periodNanoseconds: Int64
    public var cameras: [Camera]
    public var pairs: [Pair]

    /// The pair furthest apart at its worst, if any.
    public var worstPair: Pair? { pairs.max { $0.apart.maxNanoseconds < $1.apart.maxNanoseconds } }

    /// Cameras more than a quarter of a frame apart in the combined picture (at the 95th
    /// percentile, so that one late frame is not a rig's fault): a cut or a side-by-side
    /// then shows a movement or a mouth out of step.
    public var isOutOfStep: Bool {
        guard let worst = pairs.max(by: { $0.apart.p95Nanoseconds < $1.apart.p95Nanoseconds }) else { return false }
        return worst.apart.p95Nanoseconds * 4 > periodNanoseconds
    }
}

/// Gathers `FramePhase` frame by frame in constant memory (one histogram per camera and
/// per pair).
struct FramePhaseMeter: Sendable {
    struct Drift: Sendable {
        var firstTime: Int64
        var firstPhase: Int64
        var lastTime: Int64
        /// The phase unwrapped across the period's edge, so a drift is not cut into jumps.
        var unwrapped: Int64
        var lastPhase: Int64
    }

    let periodNanoseconds: Int64
    let streamCount: Int
    private var grid: [ErrorHistogram]
    private var drift: [Drift?]
    private var apart: [ErrorHistogram]

    init(streamCount: Int, periodNanoseconds: Int64) {
        self.streamCount = streamCount
        self.periodNanoseconds = periodNanoseconds
        grid = Array(repeating: ErrorHistogram(), count: streamCount)
        drift = Array(repeating: nil, count: streamCount)
        apart = Array(repeating: ErrorHistogram(), count: streamCount * (streamCount - 1) / 2)
    }

    /// A frame of `stream` captured `phase` from the nearest tick of the fixed grid.
    mutating func frame(stream s: Int, at time: Int64, phase: Int64) {
        grid[s].add(phase)
        guard var d = drift[s] else {
            drift[s] = Drift(firstTime: time, firstPhase: phase, lastTime: time, unwrapped: phase, lastPhase: phase)
            return
        }
        d.unwrapped += GridPlacement.wrapped(phase - d.lastPhase, period: periodNanoseconds)
        d.lastPhase = phase
        d.lastTime = time
        drift[s] = d
    }

    /// What one tick showed: each stream's picture's capture instant, nil for none.
    mutating func tick(_ instants: [Int64?]) {
        for i in 0..<streamCount {
            guard let a = instants[i] else { continue }
            for j in (i + 1)..<streamCount {
                guard let b = instants[j] else { continue }
                apart[pairIndex(i, j)].add(a - b)
            }
        }
    }

    private func pairIndex(_ i: Int, _ j: Int) -> Int {
        i * streamCount - i * (i + 1) / 2 + (j - i - 1)
    }

    private func driftPerMinute(_ s: Int) -> Double {
        guard let d = drift[s], d.lastTime > d.firstTime else { return 0 }
        return Double(d.unwrapped - d.firstPhase) / Double(d.lastTime - d.firstTime) * 60e9
    }

    var phase: FramePhase {
        let cameras = (0..<streamCount).map {
            FramePhase.Camera(stream: $0, grid: .init(grid[$0]), driftNanosecondsPerMinute: driftPerMinute($0))
        }
        var pairs: [FramePhase.Pair] = []
        for i in 0..<streamCount {
            for j in (i + 1)..<streamCount where apart[pairIndex(i, j)].count > 0 {
                pairs.append(.init(streams: [i, j], apart: .init(apart[pairIndex(i, j)]),
                                   driftNanosecondsPerMinute: driftPerMinute(i) - driftPerMinute(j)))
            }
        }
        return FramePhase(periodNanoseconds: periodNanoseconds, cameras: cameras, pairs: pairs)
    }
}
