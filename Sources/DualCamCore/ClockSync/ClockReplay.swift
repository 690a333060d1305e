/// Replays a logged run of clock exchanges (`dualcam-agent run --clock-log FILE`) through
/// the estimator the way the agent fed it: every clock-lane answer, and an answer over TLS
/// only while the lane had been silent for `laneSilenceNanoseconds` (the agent's fallback).
///
/// Where the agent and the coordinator read one kernel clock (two network namespaces of
/// one machine, as in `tools/bench/clock-network.sh`), the shared clock *is* the local one,
/// so the true error of every estimate is known to the nanosecond: no DCTC step (100 µs)
/// blurs it, and the estimator can be judged on a real path's exchanges, not a model's.
public struct ClockReplay: Sendable {
    public enum Path: String, Sendable { case lane, tls }

    public struct Row: Sendable, Hashable {
        public var path: Path
        public var sample: ClockSample

        public init(path: Path, sample: ClockSample) {
            self.path = path
            self.sample = sample
        }

        /// The row as a line of a clock log (without the newline), as the agent writes it.
        public var line: String { "\(path.rawValue) \(sample.t1) \(sample.t2) \(sample.t3) \(sample.t4)" }

        /// One line of a clock log: `lane|tls t1 t2 t3 t4`. Nil for anything else.
        public init?(line: Substring) {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let path = Path(rawValue: String(fields[0])) else { return nil }
            let t = fields.dropFirst().compactMap { Int64($0) }
            guard t.count == 4 else { return nil }
            self.init(path: path, sample: ClockSample(t1: t[0], t2: t[1], t3: t[2], t4: t[3]))
        }
    }

    /// What the replay saw. Error figures exist only for a same-clock log.
    public struct Figures: Sendable {
        public var exchanges = 0
        public var fedOverTLS = 0
        /// Local nanoseconds from the first answer to the first locked estimate.
        public var lockedAfterNanoseconds: Int64?
        /// Instants checked: halfway between consecutive answers, from `settleNanoseconds`
        /// after lock on (a take starts no sooner).
        public var checks = 0
        var errors = ErrorHistogram()
        var bounds = ErrorHistogram()
        var signedErrorSum = 0.0
        /// |true error| at the checks (same-clock logs only).
        public var error: ErrorDistribution { errors.distribution }
        /// Mean true error with its sign: a path's invisible asymmetry shows here.
        public var meanSignedErrorNanoseconds: Double { errors.count > 0 ? signedErrorSum / Double(errors.count) : 0 }
        /// The bound the estimate gave for each checked instant.
        public var bound: ErrorDistribution { bounds.distribution }
        /// Checks whose true error exceeded the bound the estimate gave for that instant.
        public var boundBelowError = 0
        public var stepsDetected = 0
    }

    public var configuration: ClockEstimator.Configuration
    public var laneSilenceNanoseconds: Int64 = 2_000_000_000
    public var settleNanoseconds: Int64 = 1_000_000_000

    public init(configuration: ClockEstimator.Configuration = .agent) {
        self.configuration = configuration
    }

    /// Replays `rows` in the order they were logged. `sameClock`: the agent's clock is the
    /// coordinator's, so `shared − local` is truly 0.
    public func run(_ rows: [Row], sameClock: Bool) -> Figures {
        var figures = Figures()
        var estimator = ClockEstimator(configuration: configuration)
        var lastLane: Int64?
        var fed: [(ClockSample, ClockEstimate)] = []
        for row in rows {
            let s = row.sample
            switch row.path {
            case .lane: lastLane = s.t4
            case .tls:
                if let lane = lastLane, s.t4 &- lane < laneSilenceNanoseconds { continue }
                figures.fedOverTLS += 1
            }
            figures.exchanges += 1
            guard let estimate = estimator.add(s) else { continue }
            fed.append((s, estimate))
        }
        figures.stepsDetected = estimator.stepsDetected
        guard let first = fed.first?.0.t4,
              let lock = fed.firstIndex(where: { $0.1.state == .locked }) else { return figures }
        let lockedAt = fed[lock].0.t4
        figures.lockedAfterNanoseconds = lockedAt &- first
        for i in fed.indices.dropLast() where i >= lock && fed[i].0.t4 &- lockedAt >= settleNanoseconds {
            let estimate = fed[i].1
            let at = fed[i].0.t4 &+ (fed[i + 1].0.t4 &- fed[i].0.t4) / 2
            let bound = estimate.errorBound(atLocal: at)
            figures.checks += 1
            figures.bounds.add(bound)
            guard sameClock else { continue }
            let error = estimate.shared(fromLocal: LocalInstant(nanoseconds: at)).nanoseconds &- at
            figures.errors.add(error)
            figures.signedErrorSum += Double(error)
            if error.magnitude > UInt64(max(bound, 0)) { figures.boundBelowError += 1 }
        }
        return figures
    }
}
