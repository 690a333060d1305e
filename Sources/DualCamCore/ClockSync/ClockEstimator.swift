/// Estimates the shared (coordinator) clock against the agent's local clock from
/// NTP-style four-timestamp exchanges: offset **and** rate, with an error bound.
///
/// How it works, per added sample:
/// - **Delay filter.** An exchange's offset is wrong by half the difference of its two
///   one-way delays, so it can only be trusted to within half its round trip. Like the
///   clock filter of RFC 5905 and chrony's delay-based weighting, only the lowest-delay
///   fraction of the window (a delay quantile) is used, and each kept sample is weighted
///   by how close its delay is to the window's minimum, so a queued packet barely counts.
/// - **Weighted regression** of offset against local time over the window gives the
///   offset and the rate together; a weak prior (rate near zero, ±1000 ppm) keeps the
///   first few samples, which span too little time to show a rate, well posed.
/// - **Error bound.** At the regression's weighted centroid the offset is a weighted mean
///   of the kept samples, each within half its round trip of the truth, so the largest
///   half round trip among them bounds the error there. Away from the centroid the bound
///   widens by a multiple of the rate's standard error times the distance. It is never
///   below half the round trip of any sample used.
/// - **Steps.** A sample that disagrees with the current line by more than its own half
///   round trip plus a tolerance is held back; when several such samples agree with each
///   other, one of the clocks has stepped (or the coordinator restarted): the window is
///   discarded and estimation restarts from them. A local clock that runs backwards
///   between exchanges restarts it at once.
/// - **Polling.** A burst while unsynced or converging (and while a step is suspected),
///   the slow interval once locked.
///
/// What it cannot see: **constant path asymmetry.** If the path to the coordinator is
/// `d` slower than the path back, every sample's offset is shifted by `d/2`, and so are
/// the minimum-delay samples: the data are exactly those of a clock `d/2` away with a
/// symmetric path, so no filter or regression can detect it. The cost is a fixed error of
/// `d/2` in every mapped instant (and the same in both directions of `shared`/`local`);
/// it never exceeds half the minimum round trip, which is why the reported bound is never
/// below that. On a switched LAN it is tens of microseconds; over Wi-Fi whose uplink is
/// busier than its downlink it can approach a millisecond.
public struct ClockEstimator: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Poll interval while unsynced, converging, or checking a suspected step.
        public var burstIntervalNanoseconds: Int64 = 20_000_000
        /// Poll interval once locked.
        public var lockedIntervalNanoseconds: Int64 = 1_000_000_000
        /// Most samples kept for the regression.
        public var windowSamples: Int = 128
        /// Oldest sample kept, measured back from the newest, in local time.
        public var windowSpanNanoseconds: Int64 = 600_000_000_000
        /// Fraction of the window, lowest delays first, that the regression uses.
        public var delayQuantile: Double = 0.4
        /// The fewest samples the regression uses when the window has them.
        public var minimumSamplesUsed: Int = 3
        /// Scatter assumed even for a minimum-delay sample (timestamping, scheduling).
        public var noiseFloorNanoseconds: Double = 20_000
        /// Samples and span needed before the rate is trusted and polling slows.
        public var lockSamples: Int = 40
        public var lockSpanNanoseconds: Int64 = 2_000_000_000
        /// Smallest disagreement, beyond a sample's own half round trip, treated as a step.
        public var stepThresholdNanoseconds: Int64 = 1_000_000
        /// Consecutive agreeing outliers that confirm a step.
        public var stepConfirmationSamples: Int = 3
        /// Standard errors of the rate added to the bound away from the centroid.
        public var rateSigmas: Double = 5
        /// Prior standard deviation of the rate.
        public var ratePriorSigma: Double = 1e-3

        public init() {}
    }

    /// The part of a sample the regression needs, in the units it uses.
    struct Point: Sendable {
        var local: Int64  // midpoint
        var offset: Double
        var delay: Int64
    }

    public let configuration: Configuration
    public private(set) var estimate: ClockEstimate?
    /// Clock steps (or coordinator restarts) detected so far.
    public private(set) var stepsDetected = 0
    /// Samples refused as impossible (a clock ran backwards inside the exchange).
    public private(set) var samplesRejected = 0

    var window: [Point] = []
    var suspects: [Point] = []
    var lastSendLocal: Int64?

    public init(configuration: Configuration = .init()) {
        precondition(configuration.windowSamples >= 2 && configuration.delayQuantile > 0
                     && configuration.delayQuantile <= 1, "invalid clock estimator configuration")
        self.configuration = configuration
    }

    /// Adds one exchange and returns the estimate after it (nil while unsynced).
    @discardableResult
    public mutating func add(_ sample: ClockSample) -> ClockEstimate? {
        guard sample.isPlausible else {
            samplesRejected += 1
            return estimate
        }
        let point = Point(local: sample.localMidpointNanoseconds, offset: sample.offsetNanoseconds,
                          delay: sample.delayNanoseconds)
        if let last = lastSendLocal, sample.t1 < last {
            restart(from: [point])
            lastSendLocal = sample.t1
            return estimate
        }
        lastSendLocal = sample.t1
        switch classify(point) {
        case .consistent:
            suspects.removeAll()
        case .ambiguous:
            break
        case .outlier:
            suspects.append(point)
            if suspectsAgree() && suspects.count >= configuration.stepConfirmationSamples {
                restart(from: suspects)
            }
            return estimate
        }
        window.append(point)
        trimWindow()
        refit()
        return estimate
    }

    /// How long to wait before the next exchange, in nanoseconds.
    public func nextPollInterval() -> Int64 {
        if estimate?.state == .locked && suspects.isEmpty {
            return configuration.lockedIntervalNanoseconds
        }
        return configuration.burstIntervalNanoseconds
    }

    /// Forgets everything, as after a reconnect to a different coordinator.
    public mutating func reset() {
        window.removeAll()
        suspects.removeAll()
        lastSendLocal = nil
        estimate = nil
    }

    // MARK: - Steps

    enum Verdict { case consistent, ambiguous, outlier }

    private func tolerance(at local: Int64, _ current: ClockEstimate) -> Double {
        max(Double(configuration.stepThresholdNanoseconds), 2 * Double(current.errorBound(atLocal: local)))
    }

    private func classify(_ point: Point) -> Verdict {
        guard let current = estimate else { return .consistent }
        let predicted = current.offsetNanoseconds
            + current.rate * Double(point.local &- current.referenceLocalNanoseconds)
        let halfDelay = Double(point.delay) / 2
        let miss = (point.offset - predicted).magnitude - halfDelay
        if miss > tolerance(at: point.local, current) { return .outlier }
        // A slow sample agrees with everything; it must not clear a suspected step.
        if let first = suspects.first, agree(point, first) { return .ambiguous }
        return .consistent
    }

    private func agree(_ a: Point, _ b: Point) -> Bool {
        let slack = Double(a.delay + b.delay) / 2 + Double(configuration.stepThresholdNanoseconds)
            + configuration.ratePriorSigma * Double(a.local &- b.local).magnitude
        return (a.offset - b.offset).magnitude <= slack
    }

    private mutating func suspectsAgree() -> Bool {
        guard let newest = suspects.last else { return false }
        // Keep only the run that agrees with the newest; a lone glitch falls away.
        if let split = suspects.lastIndex(where: { !agree($0, newest) }) {
            suspects.removeSubrange(...split)
        }
        return true
    }

    private mutating func restart(from points: [Point]) {
        stepsDetected += 1
        window = points
        suspects.removeAll()
        estimate = nil
        lastSendLocal = nil
        refit()
    }

    // MARK: - Fit

    private mutating func trimWindow() {
        if window.count > configuration.windowSamples {
            window.removeFirst(window.count - configuration.windowSamples)
        }
        guard let newest = window.last?.local else { return }
        let oldest = newest &- configuration.windowSpanNanoseconds
        if let keepFrom = window.firstIndex(where: { $0.local >= oldest }), keepFrom > 0 {
            window.removeFirst(keepFrom)
        }
    }

    private mutating func refit() {
        guard let newest = window.last else {
            estimate = nil
            return
        }
        let config = configuration
        var delays = window.map(\.delay)
        delays.sort()
        let minimumDelay = delays[0]
        let wanted = max(config.minimumSamplesUsed, Int((Double(delays.count) * config.delayQuantile).rounded(.up)))
        let cutoff = delays[min(wanted, delays.count) - 1]

        // Weighted sums with x measured from the newest sample, so Doubles stay exact enough.
        var sw = 0.0, swx = 0.0, swy = 0.0
        var used = 0
        var largestDelay: Int64 = 0
        for p in window where p.delay <= cutoff {
            let sigma = config.noiseFloorNanoseconds + Double(p.delay - minimumDelay) / 2
            let w = 1 / (sigma * sigma)
            let x = Double(p.local &- newest.local)
            sw += w
            swx += w * x
            swy += w * p.offset
            used += 1
            largestDelay = max(largestDelay, p.delay)
        }
        let meanX = swx / sw, meanY = swy / sw
        var sxx = 0.0, sxy = 0.0
        for p in window where p.delay <= cutoff {
            let sigma = config.noiseFloorNanoseconds + Double(p.delay - minimumDelay) / 2
            let w = 1 / (sigma * sigma)
            let dx = Double(p.local &- newest.local) - meanX
            sxx += w * dx * dx
            sxy += w * dx * (p.offset - meanY)
        }
        let prior = 1 / (config.ratePriorSigma * config.ratePriorSigma)
        let rate = sxy / (sxx + prior)
        // Scale the assumed noise by what the residuals show, never below it.
        var chiSquare = 0.0
        for p in window where p.delay <= cutoff {
            let sigma = config.noiseFloorNanoseconds + Double(p.delay - minimumDelay) / 2
            let residual = p.offset - meanY - rate * (Double(p.local &- newest.local) - meanX)
            chiSquare += residual * residual / (sigma * sigma)
        }
        let scale = used > 2 ? max(1, chiSquare / Double(used - 2)) : 1
        let rateSigma = (scale / (sxx + prior)).squareRoot()
        let rateUncertainty = config.rateSigmas * rateSigma

        let offsetAtNewest = meanY + rate * (0 - meanX)
        let bound = Double(largestDelay) / 2 + rateUncertainty * meanX.magnitude
        let span = newest.local &- (window.first?.local ?? newest.local)
        let locked = window.count >= config.lockSamples && span >= config.lockSpanNanoseconds
        estimate = ClockEstimate(
            offsetNanoseconds: offsetAtNewest, rate: rate, referenceLocalNanoseconds: newest.local,
            errorBoundNanoseconds: Int64(bound.rounded(.up)), rateUncertainty: rateUncertainty,
            state: locked ? .locked : .converging, samplesUsed: used)
    }
}
