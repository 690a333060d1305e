/// The minimum-delay fit, taken to its limit: every exchange says the true offset line
/// passes *below* its forward reading (`t2 − t1`, raised by the outbound delay) and
/// *above* its backward reading (`t3 − t4`, lowered by the return delay). Delays are never
/// negative, so only the lowest-delay readings in each direction, the lower convex hull
/// of the forward points and the upper hull of the backward points, constrain the line;
/// queued or retried packets never touch it. The fit is the line that keeps the widest
/// margin to both hulls (the one implying the largest equal minimum delay both ways).
///
/// Its precision improves like `1/n` rather than `1/√n`, because the hulls close in on
/// the path's minimum delay, which is why it beats a least-squares line on the same
/// samples (measured in `ClockEstimatorTests`).
struct EnvelopeFit {
    struct Point {
        var x: Double
        var y: Double
        /// The exchange's round trip and send instant (which identifies it).
        var delay: Int64
        var id: Int64
    }

    /// The hull vertices and the slopes of the edges between them.
    struct Hull {
        var vertices: [Point]
        var slopes: [Double]
    }

    let forward: Hull  // lower hull: F(r) = min(y − r x), edge slopes increasing
    let backward: Hull  // upper hull: B(r) = max(y − r x), edge slopes decreasing
    /// The slopes (rates) considered.
    let rates: ClosedRange<Double>

    init(_ frontier: EnvelopeFrontier, reference: Int64, base: Int64) {
        let f = frontier.forward.map { o in
            Point(x: Double(o.t1 &- reference), y: Double(o.forward &- base), delay: o.delay, id: o.t1)
        }
        let b = frontier.backward.map { o in
            Point(x: Double(o.t4 &- reference), y: Double(o.backward &- base), delay: o.delay, id: o.t1)
        }
        rates = frontier.rates
        forward = EnvelopeFit.hull(EnvelopeFit.frontier(f, lower: true, rates: rates), lower: true)
        backward = EnvelopeFit.hull(EnvelopeFit.frontier(b, lower: false, rates: rates), lower: false)
    }

    /// Drops every point that another point, older or newer, beats for all slopes in
    /// `rates`; `EnvelopeFrontier` has already dropped those beaten by newer ones.
    static func frontier(_ points: [Point], lower: Bool, rates: ClosedRange<Double>) -> [Point] {
        let centre = (rates.lowerBound + rates.upperBound) / 2
        let r = (rates.upperBound - rates.lowerBound) / 2
        var sorted = points
        var inOrder = true
        for i in sorted.indices.dropFirst() where sorted[i - 1].x > sorted[i].x { inOrder = false }
        if !inOrder { sorted.sort { $0.x < $1.x } }
        let sign = lower ? 1.0 : -1.0  // mirror the upper case into the lower one
        var keep = [Bool](repeating: true, count: sorted.count)
        var best = Double.infinity
        for i in sorted.indices {
            let key = sign * (sorted[i].y - centre * sorted[i].x) - r * sorted[i].x
            if key >= best { keep[i] = false } else { best = key }
        }
        best = .infinity
        var i = sorted.count - 1
        while i >= 0 {
            let key = sign * (sorted[i].y - centre * sorted[i].x) + r * sorted[i].x
            if key >= best { keep[i] = false } else { best = key }
            i -= 1
        }
        var kept: [Point] = []
        for i in sorted.indices where keep[i] { kept.append(sorted[i]) }
        return kept
    }

    /// Monotone chain over points sorted by x (as `frontier` leaves them); of points
    /// sharing an x only the one nearest the line can matter.
    static func hull(_ sorted: [Point], lower: Bool) -> Hull {
        var vertices: [Point] = []
        vertices.reserveCapacity(sorted.count)
        for p in sorted {
            if let last = vertices.last, last.x == p.x {
                if lower ? p.y < last.y : p.y > last.y { vertices.removeLast() } else { continue }
            }
            while vertices.count >= 2 {
                let o = vertices[vertices.count - 2], a = vertices[vertices.count - 1]
                let cross = (a.x - o.x) * (p.y - o.y) - (a.y - o.y) * (p.x - o.x)
                if lower ? cross <= 0 : cross >= 0 { vertices.removeLast() } else { break }
            }
            vertices.append(p)
        }
        var slopes: [Double] = []
        slopes.reserveCapacity(max(vertices.count - 1, 0))
        for k in vertices.indices.dropFirst() {
            slopes.append((vertices[k].y - vertices[k - 1].y) / (vertices[k].x - vertices[k - 1].x))
        }
        return Hull(vertices: vertices, slopes: slopes)
    }

    /// The forward vertex a line of slope `r` rests on.
    func forwardVertex(_ r: Double) -> Point {
        var lo = 0, hi = forward.slopes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if forward.slopes[mid] < r { lo = mid + 1 } else { hi = mid }
        }
        return forward.vertices[lo]
    }

    func backwardVertex(_ r: Double) -> Point {
        var lo = 0, hi = backward.slopes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if backward.slopes[mid] > r { lo = mid + 1 } else { hi = mid }
        }
        return backward.vertices[lo]
    }

    /// Highest intercept (offset at x = 0) a line of slope `r` may have.
    func ceiling(_ r: Double) -> Double {
        let v = forwardVertex(r)
        return v.y - r * v.x
    }

    /// Lowest intercept a line of slope `r` may have.
    func floor(_ r: Double) -> Double {
        let v = backwardVertex(r)
        return v.y - r * v.x
    }

    /// Twice the minimum one-way delay a line of slope `r` implies; concave in `r`.
    func gap(_ r: Double) -> Double { ceiling(r) - floor(r) }

    /// Slopes where `gap` can bend, within the allowed rates, ascending.
    func breakpoints() -> [Double] {
        var all = [rates.lowerBound, rates.upperBound]
        for s in forward.slopes where s > rates.lowerBound && s < rates.upperBound { all.append(s) }
        for s in backward.slopes where s > rates.lowerBound && s < rates.upperBound { all.append(s) }
        all.sort()
        return all
    }

    /// The rates whose gap is at least `level`: an interval, as `gap` is concave and
    /// piecewise linear between `points`.
    func rates(withGapAtLeast level: Double, points: [Double], gaps: [Double]) -> ClosedRange<Double>? {
        guard let first = gaps.firstIndex(where: { $0 >= level }),
              let last = gaps.lastIndex(where: { $0 >= level }) else { return nil }
        func cross(_ i: Int, _ j: Int) -> Double {
            let (gi, gj) = (gaps[i], gaps[j])
            return gi == gj ? points[i] : points[i] + (points[j] - points[i]) * (level - gi) / (gj - gi)
        }
        // Rounding may push an interpolated end past its breakpoint; the breakpoints
        // themselves are known to qualify.
        let lo = first == 0 ? points[0] : min(cross(first - 1, first), points[first])
        let hi = last == points.count - 1 ? points[last] : max(cross(last, last + 1), points[last])
        return lo...max(lo, hi)
    }

    /// The widest gap any allowed rate leaves between the hulls; negative when no line
    /// fits under every outbound and over every return reading.
    func widestGap() -> Double {
        breakpoints().map(gap).max() ?? 0
    }

    /// Fits the line. `tolerance` is how far below the widest gap a slope may be and still
    /// count as fitting the data; the rate is the middle of those slopes, so that a window
    /// too short to show a rate yields one near zero instead of an extreme.
    func fit(tolerance: Double) -> LineFit {
        let points = breakpoints()
        let gaps = points.map(gap)
        let widest = gaps.max() ?? 0
        let plausible = rates(withGapAtLeast: widest - tolerance, points: points, gaps: gaps) ?? 0...0
        let rate = (plausible.lowerBound + plausible.upperBound) / 2
        let offset = (ceiling(rate) + floor(rate)) / 2

        // Hard bound: every line with non-negative delays both ways. If the data admit no
        // such line (the clock wandered off a straight line), the least violating one.
        let feasible = rates(withGapAtLeast: min(0, widest), points: points, gaps: gaps) ?? rate...rate
        var highest = max(ceiling(feasible.lowerBound), ceiling(feasible.upperBound))
        var lowest = min(floor(feasible.lowerBound), floor(feasible.upperBound))
        for r in points where feasible.contains(r) {
            highest = max(highest, ceiling(r))
            lowest = min(lowest, floor(r))
        }
        // Every line between the hulls is possible, the true one included, however the
        // minimum delays split between the two directions: so this also holds a constant
        // path asymmetry, up to half the gap (the sum of the two fastest one-way delays).
        // An earlier floor of half the round trip of the exchanges the line rests on was
        // not needed for that (the gap already is the room an asymmetry has) and made the
        // bound 2-10x the true error on a jittery path, where the fastest outbound and the
        // fastest return readings come from different exchanges, each with a slow other half.
        let bound = max(highest - offset, offset - lowest, -widest / 2)
        var used: Set<Int64> = []
        for r in [plausible.lowerBound, rate, plausible.upperBound] {
            for v in [forwardVertex(r), backwardVertex(r)] { used.insert(v.id) }
        }
        let rateUncertainty = max(feasible.upperBound - rate, rate - feasible.lowerBound)
        return LineFit(offset: offset, rate: rate, bound: bound, rateUncertainty: rateUncertainty,
                       samplesUsed: used.count)
    }
}
