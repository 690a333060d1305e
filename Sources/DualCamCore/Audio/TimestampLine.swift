/// Least-squares line of chunk timestamps against the card's cumulative sample count,
/// over a sliding window, updated in O(1) per point.
///
/// Sums are kept relative to an origin point so that they stay small after hours; the
/// origin moves (and the sums are rebuilt) once per window, which keeps the work per point
/// constant on average. A ridge prior on the slope keeps a short history, a few jittery
/// points only milliseconds apart, from implying an absurd rate.
struct TimestampLine: Sendable {
    private struct Point: Sendable {
        var input: Int64
        var timestamp: Int64
    }

    /// Input samples of history kept.
    let span: Int64
    /// Weight of the prior slope, in (ns)² per (ns per sample)² — the squared ratio of the
    /// timestamp noise to the prior's slope uncertainty.
    let priorWeight: Double
    private(set) var priorSlope: Double

    private var points: [Point] = []
    private var head = 0
    private var originInput: Int64 = 0
    private var originTimestamp: Int64 = 0
    private var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0

    init(span: Int64, priorSlope: Double, priorWeight: Double) {
        self.span = span
        self.priorSlope = priorSlope
        self.priorWeight = priorWeight
    }

    var isEmpty: Bool { head == points.count }

    /// Nanoseconds per input sample.
    var slope: Double {
        guard n > 0 else { return priorSlope }
        let cxx = sxx - sx * sx / n
        let cxy = sxy - sx * sy / n
        return (cxy + priorWeight * priorSlope) / (max(cxx, 0) + priorWeight)
    }

    /// The fitted timestamp of input sample `input`, minus `reference`; nil without history.
    func timestamp(atInput input: Int64, minus reference: Int64) -> Double? {
        guard n > 0 else { return nil }
        let meanX = sx / n, meanY = sy / n
        return Double(originTimestamp &- reference) + meanY + slope * (Double(input &- originInput) - meanX)
    }

    mutating func add(input: Int64, timestamp: Int64) {
        if isEmpty {
            originInput = input
            originTimestamp = timestamp
        }
        points.append(Point(input: input, timestamp: timestamp))
        accumulate(points[points.count - 1], sign: 1)
        while head < points.count - 1, points[head].input <= input - span {
            accumulate(points[head], sign: -1)
            head += 1
        }
        if input - originInput > 2 * span { rebase() }
    }

    /// Forgets the history after a discontinuity; the rate it had found becomes the prior.
    mutating func restart() {
        priorSlope = slope
        points.removeAll(keepingCapacity: true)
        head = 0
        n = 0; sx = 0; sy = 0; sxx = 0; sxy = 0
    }

    private mutating func accumulate(_ p: Point, sign: Double) {
        let dx = Double(p.input &- originInput), dy = Double(p.timestamp &- originTimestamp)
        n += sign
        sx += sign * dx
        sy += sign * dy
        sxx += sign * dx * dx
        sxy += sign * dx * dy
    }

    private mutating func rebase() {
        points.removeFirst(head)
        head = 0
        originInput = points[0].input
        originTimestamp = points[0].timestamp
        n = 0; sx = 0; sy = 0; sxx = 0; sxy = 0
        for p in points { accumulate(p, sign: 1) }
    }
}
