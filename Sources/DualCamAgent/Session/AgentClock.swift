import DualCamCore
import DualCamNet
import NIOConcurrencyHelpers

/// The agent's view of time: its local clock (CLOCK_MONOTONIC, optionally with a simulated
/// error for tests) and the latest estimate of the shared clock against it.
public final class AgentClock: Sendable {
    public let simulatedError: SimulatedClockError
    /// The host's true time (CLOCK_MONOTONIC in production), and what the session waits on.
    public let source: any TimeSource
    private let estimator: NIOLockedValueBox<ClockEstimator>

    static var configuration: ClockEstimator.Configuration { .agent }

    /// Testing: from a local instant on, the estimate is off by `nanoseconds` more, as an
    /// estimate that re-converges after a disturbance steps (`--simulate-estimate-step-us`).
    public struct EstimateStep: Sendable, Hashable {
        public var atLocalNanoseconds: Int64
        public var nanoseconds: Int64
        public init(atLocalNanoseconds: Int64, nanoseconds: Int64) {
            (self.atLocalNanoseconds, self.nanoseconds) = (atLocalNanoseconds, nanoseconds)
        }
    }
    private let estimateStep: EstimateStep?

    public init(simulatedError: SimulatedClockError, source: any TimeSource = SystemClock(), estimateStep: EstimateStep? = nil) {
        self.simulatedError = simulatedError
        self.source = source
        self.estimator = NIOLockedValueBox(ClockEstimator(configuration: AgentClock.configuration))
        self.standalone = nil
        self.estimateStep = estimateStep
    }

    /// The agent's local clock: what every part of the agent uses, except DCTC codes.
    public func localNow() -> Int64 { simulatedError.local(fromTrue: source.now) }

    /// The same reading, typed: what meets the shared clock only through `estimate`.
    public var now: LocalInstant { LocalInstant(nanoseconds: localNow()) }

    /// The local clock's reading `nanoseconds` ago: where a kernel stamp, given as an age,
    /// falls on it.
    public func localNow(ago nanoseconds: Int64) -> Int64 {
        simulatedError.local(fromTrue: source.now &- nanoseconds)
    }

    public func add(_ sample: ClockSample) -> ClockEstimate? {
        estimator.withLockedValue { $0.add(sample) }
    }

    public var estimate: ClockEstimate? {
        if let standalone { return standalone }
        guard var estimate = estimator.withLockedValue({ $0.estimate }) else { return nil }
        if let step = estimateStep, localNow() >= step.atLocalNanoseconds { estimate.offsetNanoseconds += Double(step.nanoseconds) }
        return estimate
    }

    /// A lone node (`dualcam-agent record`) has no coordinator: its own clock is the
    /// session's clock.
    private let standalone: ClockEstimate?

    public init(standaloneWith simulatedError: SimulatedClockError, source: any TimeSource = SystemClock()) {
        self.simulatedError = simulatedError
        self.source = source
        self.estimator = NIOLockedValueBox(ClockEstimator(configuration: AgentClock.configuration))
        self.standalone = ClockEstimate(offsetNanoseconds: 0, rate: 0, referenceLocalNanoseconds: 0,
                                        errorBoundNanoseconds: 0, state: .locked, samplesUsed: 0)
        self.estimateStep = nil
    }

    public func nextPollInterval() -> Int64 { estimator.withLockedValue { $0.nextPollInterval() } }
}
