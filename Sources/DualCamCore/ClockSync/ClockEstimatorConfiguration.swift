extension ClockEstimator {
    public struct Configuration: Sendable, Hashable {
        public enum Fit: Sendable, Hashable {
            /// Minimum-delay envelope in each direction (`EnvelopeFit`); the default.
            case envelope
            /// Delay-quantile filter plus weighted least squares (`LeastSquaresFit`).
            case leastSquares
        }

        public var fit: Fit = .envelope
        /// Poll interval while unsynced, converging, or checking a suspected step.
        public var burstIntervalNanoseconds: Int64 = 10_000_000
        /// Poll interval once locked. On a jittery path only the rare fastest packets
        /// pin the line (at 1 ms ± 0.5 ms one in forty gets through in under 50 µs), so
        /// the rate is kept fresh by polling often: at 1 s a rate a few ppm off went
        /// uncorrected for tens of seconds (a sawtooth of 0.4 ms in simulation and on the
        /// jitter switch); at 50 ms the simulated p99 is 13 µs. Twenty small messages a
        /// second cost next to nothing beside video.
        public var lockedIntervalNanoseconds: Int64 = 50_000_000
        /// After locking, the interval is the window's span divided by this (see
        /// `nextPollInterval()`), between the burst and the locked interval.
        public var pollSpanDivisor: Int64 = 32
        /// Most exchanges kept in the window.
        public var windowSamples: Int = 1024
        /// Oldest exchange kept, measured back from the newest, in local time; bounds how
        /// long a change in the clocks' rate (temperature) can bend the fit.
        public var windowSpanNanoseconds: Int64 = 300_000_000_000
        /// Largest rate difference believed possible (crystals are within ±100 ppm).
        public var maximumRate: Double = 1e-3
        /// Once locked, how far from the fitted rate the envelope fit still looks; a larger
        /// change of rate (a coordinator slewing its clock) is caught as a step.
        public var lockedRateRange: Double = 100e-6
        /// Envelope: how far below the widest gap a slope still fits the data.
        public var envelopeToleranceNanoseconds: Double = 5_000
        /// Least squares: fraction of the window, lowest delays first, that is used.
        public var delayQuantile: Double = 0.4
        /// Least squares: the fewest samples used when the window has them.
        public var minimumSamplesUsed: Int = 3
        /// Least squares: scatter assumed even for a minimum-delay sample.
        public var noiseFloorNanoseconds: Double = 20_000
        /// Least squares: standard errors of the rate the bound allows for.
        public var rateSigmas: Double = 5
        /// Exchanges and span needed before the rate is trusted and polling slows.
        public var lockSamples: Int = 40
        public var lockSpanNanoseconds: Int64 = 10_000_000_000
        /// How far an exchange may push the two directions' envelopes past each other
        /// (leave no straight line between them) before it counts towards a step.
        public var stepThresholdNanoseconds: Int64 = 100_000
        /// Agreeing outliers that confirm a step.
        public var stepConfirmationSamples: Int = 3
        /// Exchanges that fit both sides held back before a suspected step is dropped.
        public var stepHoldLimit: Int = 16

        public init() {}

        /// What an agent runs: it locks after 3 s of burst exchanges (the default, 10 s, suits
        /// a rig that syncs once before a long session; an agent that is asked to start soon
        /// after connecting needs its rate sooner, and keeps refining it while recording).
        /// The simulations of `ClockNetworkPathTests` run exactly this.
        public static var agent: Configuration {
            var c = Configuration()
            c.lockSpanNanoseconds = 3_000_000_000
            return c
        }
    }
}
