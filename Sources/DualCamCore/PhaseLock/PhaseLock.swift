/// Steers a free-running sensor onto the shared frame grid, the way rpicam-apps' software
/// sync steers a camera module: not by moving its frames, which a sensor cannot do, but by
/// lengthening or shortening its frame duration a little, frame by frame, until its frames
/// are captured on the grid's instants (k·P on the shared clock, `GenlockGrid`).
///
/// A second-order loop (a PLL, proportional and integral): each frame's stamp on the shared
/// clock gives the phase error `e` (to the nearest grid instant, so the loop takes the
/// shorter way round), and the next frame duration is `P·(1 + r) − Kp·e`, where `r`, the
/// integral, learns the sensor's crystal error (the duration that keeps its frames `P`
/// apart on the shared clock). With `Kp = 2a` and `Ki = a²` both poles sit at `1 − a`:
/// critically damped, settling in a few times `1/a` frames. A sensor takes only so much
/// change in one frame (`maxAdjustNanoseconds`): a larger correction slews at that limit,
/// and the integral is held meanwhile so that it does not wind up. A lost frame, a jittery
/// stamp or a step of the clock estimate is only a phase error like any other.
///
/// Pure: stamps in, durations out; no clock of its own, so it is tested on simulated
/// sensors (`PhaseLockTests`) and the shells perform what it returns.
public struct PhaseLock: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var rate: FrameRate
        /// The most one frame may be lengthened or shortened (the sensor's limit).
        public var maxAdjustNanoseconds: Int64
        /// The loop's pole distance from 1 (per frame), in (0, 1): larger locks faster and
        /// passes more of the stamps' jitter into the durations.
        public var gain = 0.1
        /// Locked once this many frames in a row were within `lockThresholdNanoseconds`.
        public var lockThresholdNanoseconds: Int64 = 500_000
        public var lockFrames = 15

        public init(rate: FrameRate, maxAdjustNanoseconds: Int64) {
            precondition(maxAdjustNanoseconds > 0, "a sensor's limit")
            (self.rate, self.maxAdjustNanoseconds) = (rate, maxAdjustNanoseconds)
        }
    }

    /// What to do with the next frame.
    public struct Step: Sendable, Hashable {
        /// The duration to give the sensor's next frame.
        public var frameDurationNanoseconds: Int64
        /// The frame's stamp minus the nearest grid instant.
        public var phaseErrorNanoseconds: Int64
        public var locked: Bool
    }

    public let configuration: Configuration
    /// The relative duration correction learnt so far: minus the sensor's crystal error.
    public private(set) var rateCorrection: Double = 0
    private var withinThreshold = 0

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    public var isLocked: Bool { withinThreshold >= configuration.lockFrames }

    /// A frame was captured at `stampNanoseconds` on the shared clock.
    public mutating func frame(stampNanoseconds t: Int64) -> Step {
        let period = configuration.rate.periodNanoseconds
        let error = GenlockGrid(rate: configuration.rate).offsetFromNearestFrame(t)
        withinThreshold = error.magnitude <= configuration.lockThresholdNanoseconds.magnitude ? withinThreshold + 1 : 0
        let a = min(max(configuration.gain, 1e-6), 0.999)
        let limit = Double(configuration.maxAdjustNanoseconds)
        let wanted = Double(period) * rateCorrection - 2 * a * Double(error)
        let adjust = min(max(wanted, -limit), limit)
        // Held while slewing at the limit: the integral learns the crystal, not the start.
        if adjust == wanted {
            rateCorrection -= a * a * Double(error) / Double(period)
            rateCorrection = min(max(rateCorrection, -limit / Double(period)), limit / Double(period))
        }
        return Step(frameDurationNanoseconds: period + Int64(adjust.rounded()), phaseErrorNanoseconds: error, locked: isLocked)
    }
}
