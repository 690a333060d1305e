/// Estimates the shared (coordinator) clock against the agent's local clock from
/// NTP-style four-timestamp exchanges: offset **and** rate, with an error bound.
///
/// Per added exchange:
/// - **Delay filtering and fit.** An exchange's offset is wrong by half the difference of
///   its one-way delays, so only low-delay exchanges are worth much. The default fit,
///   `EnvelopeFit`, applies minimum-delay filtering in each direction separately and fits
///   offset and rate together: the line must pass below every outbound reading and above
///   every return reading, and the one with the widest margin to both wins. A queued or
///   retried packet never constrains it. The classic alternative, a delay-quantile filter
///   with weighted least squares (`LeastSquaresFit`, RFC 5905 / chrony style), is kept
///   as `Configuration.Fit.leastSquares`; on the delay model it is 2–3× less
///   precise (see `ClockEstimatorTests`).
/// - **Window.** Up to `windowSamples` exchanges over at most `windowSpanNanoseconds`, so a
///   slow change of either crystal's rate (temperature) bends the fit only briefly.
/// - **Error bound.** The envelope fit reports the widest offset any straight line with
///   non-negative delays in both directions could have: a hard bound as long as the rate
///   was constant over the window, whatever the path's asymmetry. It widens away from the
///   reference by the spread of such lines' rates (`ClockEstimate.errorBound(atLocal:)`).
/// - **States.** `unsynced` until the first exchange, `converging` until the window holds
///   `lockSamples` over `lockSpanNanoseconds`, then `locked`.
/// - **Steps.** An exchange that leaves no straight line under every outbound and over
///   every return reading (by more than the tolerance) is held back; when
///   `stepConfirmationSamples` such exchanges agree with one another,
///   one of the clocks stepped (or the coordinator restarted): the window is discarded and
///   estimation restarts from them. A local clock that runs backwards between exchanges
///   restarts it at once. A lone slow or odd exchange changes nothing.
/// - **Polling.** A burst (`burstIntervalNanoseconds`) until locked and while a step is
///   suspected, then an interval that grows with the window's span up to the locked one.
///
/// What it cannot see: **constant path asymmetry.** If the path to the coordinator is
/// `d` slower than the path back, every exchange's readings are those of a clock `d/2`
/// away over a symmetric path, so no filter or fit can detect it. The cost is a fixed
/// error of `d/2` in every mapped instant, in the same direction for `shared(fromLocal:)`
/// and `local(fromShared:)`, hence a fixed `d/2` skew between this agent's frames and
/// another's. It cannot exceed half the sum of the fastest outbound and the fastest
/// return delay, the gap between the hulls, which is why the bound never goes below
/// that: tens of microseconds on a switched LAN, up to about a millisecond over Wi-Fi
/// whose uplink is busier than its downlink.
public struct ClockEstimator: Sendable {
    public let configuration: Configuration
    public private(set) var estimate: ClockEstimate?
    public var state: ClockSyncState { estimate?.state ?? .unsynced }
    /// Clock steps (or coordinator restarts) detected so far.
    public private(set) var stepsDetected = 0
    /// Samples refused as impossible (a clock ran backwards inside the exchange).
    public private(set) var samplesRejected = 0
    /// Exchanges answered after one sent later had been added (datagrams that overtook
    /// one another), dropped.
    public private(set) var samplesOvertaken = 0

    /// Every exchange in the window, oldest first (counts, span, the least-squares fit).
    var window: [ClockObservation] = []
    /// The exchanges of the window that can still shape the envelope fit.
    var frontier: EnvelopeFrontier
    /// Exchanges that contradict the line and agree with one another: a possible step.
    var suspects: [ClockObservation] = []
    /// Exchanges that fit both the line and the suspects, held until that is settled.
    var held: [ClockObservation] = []
    var lastSendLocal: Int64?
    var lastReceiveLocal: Int64?

    public init(configuration: Configuration = .init()) {
        precondition(configuration.windowSamples >= 2 && configuration.delayQuantile > 0
                     && configuration.delayQuantile <= 1, "invalid clock estimator configuration")
        self.configuration = configuration
        self.frontier = EnvelopeFrontier(maximumRate: configuration.maximumRate)
    }

    /// Adds one exchange and returns the estimate after it (nil while unsynced).
    @discardableResult
    public mutating func add(_ sample: ClockSample) -> ClockEstimate? {
        guard sample.isPlausible else {
            samplesRejected += 1
            return estimate
        }
        let observation = ClockObservation(sample)
        if let lastSend = lastSendLocal, let lastReceive = lastReceiveLocal, sample.t1 < lastSend {
            // Sent earlier than the last exchange added, received no earlier: an answer that
            // was overtaken (datagrams on a jittery path, two paths at once). It was the
            // slower one, which the fit would not use. Received earlier too: the local
            // clock ran backwards, and nothing before is comparable.
            guard sample.t4 < lastReceive else {
                samplesOvertaken += 1
                return estimate
            }
            lastSendLocal = sample.t1
            lastReceiveLocal = sample.t4
            restart(from: [observation])
            return estimate
        }
        lastSendLocal = sample.t1
        lastReceiveLocal = sample.t4
        switch classify(observation) {
        case .consistent:
            // Whatever looked like a step was a glitch: keep what was held back.
            suspects.removeAll()
            admit(held)
            held.removeAll()
        case .ambiguous:
            // Fits both the old line and the suspected step: decide later.
            held.append(observation)
            if held.count >= configuration.stepHoldLimit {
                suspects.removeAll()
                admit(held)
                held.removeAll()
                trimWindow()
                refit()
            }
            return estimate
        case .outlier:
            suspects.append(observation)
            keepAgreeingSuspects()
            if suspects.count >= configuration.stepConfirmationSamples {
                restart(from: (suspects + held.filter { agree($0, observation) }).sorted { $0.t1 < $1.t1 })
            }
            return estimate
        }
        admit([observation])
        trimWindow()
        refit()
        return estimate
    }

    /// How long to wait before the next exchange, in nanoseconds.
    ///
    /// A burst until locked; then the interval grows with the span of the window (a
    /// `pollSpanDivisor`th of it) up to the locked interval, so the rate, which the burst
    /// only roughed out, keeps getting fresh exchanges while the span that pins it down grows.
    public func nextPollInterval() -> Int64 {
        let c = configuration
        guard estimate?.state == .locked, suspects.isEmpty, let first = window.first, let last = window.last else {
            return c.burstIntervalNanoseconds
        }
        let span = last.midpoint &- first.midpoint
        return min(max(span / c.pollSpanDivisor, c.burstIntervalNanoseconds), c.lockedIntervalNanoseconds)
    }

    /// Forgets everything, as after a reconnect to a different coordinator.
    public mutating func reset() {
        window.removeAll()
        frontier.removeAll(maximumRate: configuration.maximumRate)
        suspects.removeAll()
        held.removeAll()
        lastSendLocal = nil
        lastReceiveLocal = nil
        estimate = nil
    }

    // MARK: - Steps

    enum Verdict { case consistent, ambiguous, outlier }

    private func classify(_ o: ClockObservation) -> Verdict {
        guard estimate != nil, !window.isEmpty else { return .consistent }
        // A reading may come closer to the line than any before (on a jittery path the
        // fastest packets are rare, and the floor is reached late) without contradicting
        // anything. What no real path can do is leave the window with no straight line
        // under every outbound reading and over every return reading, within the allowed
        // rates: then a clock stepped. Judging by distance from the fitted line instead
        // took each new fastest packet for a step and threw the window away (dozens of
        // times a minute at 5 ms ± 3 ms, with errors of milliseconds after each).
        var trial = frontier
        trial.append(o)
        let overlap = EnvelopeFit(trial, reference: o.midpoint, base: o.forward / 2 &+ o.backward / 2).widestGap()
        if overlap < -Double(configuration.stepThresholdNanoseconds) { return .outlier }
        // A slow exchange agrees with everything; it must not clear a suspected step.
        if let newest = suspects.last, agree(o, newest) { return .ambiguous }
        return .consistent
    }

    /// Whether two exchanges fit one clock, given their delays and any plausible rate.
    private func agree(_ a: ClockObservation, _ b: ClockObservation) -> Bool {
        let slack = Double(configuration.stepThresholdNanoseconds)
            + configuration.maximumRate * Double(a.midpoint &- b.midpoint).magnitude
        // Each one's forward reading must stay above the other's backward reading.
        return Double(a.backward &- b.forward) <= slack && Double(b.backward &- a.forward) <= slack
    }

    /// Keeps only the run of suspects that agrees with the newest; a lone glitch falls away.
    private mutating func keepAgreeingSuspects() {
        guard let newest = suspects.last else { return }
        if let split = suspects.lastIndex(where: { !agree($0, newest) }) {
            suspects.removeSubrange(...split)
        }
    }

    private mutating func restart(from observations: [ClockObservation]) {
        // Out-voting a window no bigger than the evidence against it (a held-up first
        // exchange, say) is a fresh start, not a clock step.
        if window.count > configuration.stepConfirmationSamples { stepsDetected += 1 }
        window.removeAll()
        frontier.removeAll(maximumRate: configuration.maximumRate)
        admit(observations)
        suspects.removeAll()
        held.removeAll()
        estimate = nil
        refit()
    }

    // MARK: - Fit

    private mutating func admit(_ observations: [ClockObservation]) {
        for o in observations {
            window.append(o)
            frontier.append(o)
        }
    }

    private mutating func trimWindow() {
        if window.count > configuration.windowSamples {
            window.removeFirst(window.count - configuration.windowSamples)
        }
        guard let newest = window.last?.midpoint else { return }
        let oldest = newest &- configuration.windowSpanNanoseconds
        if let keepFrom = window.firstIndex(where: { $0.midpoint >= oldest }), keepFrom > 0 {
            window.removeFirst(keepFrom)
        }
        if let first = window.first { frontier.removeOlder(than: first.midpoint) }
    }

    private mutating func refit() {
        guard let newest = window.last, let oldest = window.first else {
            estimate = nil
            return
        }
        let c = configuration
        let reference = newest.midpoint
        // Offsets are fitted relative to the newest one so that Doubles keep every nanosecond.
        let base = newest.forward / 2 &+ newest.backward / 2
        let line: LineFit
        switch c.fit {
        case .envelope:
            line = EnvelopeFit(frontier, reference: reference, base: base).fit(tolerance: c.envelopeToleranceNanoseconds)
        case .leastSquares:
            line = LeastSquaresFit.fit(window, reference: reference, base: base, quantile: c.delayQuantile,
                                       minimumUsed: c.minimumSamplesUsed, noiseFloor: c.noiseFloorNanoseconds,
                                       ratePriorSigma: c.maximumRate, rateSigmas: c.rateSigmas)
        }
        let span = newest.midpoint &- oldest.midpoint
        let locked = window.count >= c.lockSamples && span >= c.lockSpanNanoseconds
        if locked {
            let r = c.lockedRateRange
            frontier.rates = max(line.rate - r, -c.maximumRate)...min(line.rate + r, c.maximumRate)
        }
        estimate = ClockEstimate(
            offsetNanoseconds: Double(base) + line.offset, rate: line.rate, referenceLocalNanoseconds: reference,
            errorBoundNanoseconds: Int64(line.bound.rounded(.up)), rateUncertainty: line.rateUncertainty,
            state: locked ? .locked : .converging, samplesUsed: line.samplesUsed)
    }
}
