/// Places the first frame of a camera that cannot be steered (a V4L2 webcam) on the shared
/// frame grid by choosing when to start it. Such a camera's frames follow from the moment
/// streaming starts: a fixed start latency (the driver's and the sensor's) after the
/// stream-on call, then one frame period after another at its own crystal's rate. So a
/// first start measures that latency, and a second start, timed to the grid instant less
/// the latency, puts the first frame on the grid. From there the camera drifts at its
/// crystal's rate, which only the frames' stamps can tell (`FramePhase`).
///
/// Pure: instants in, instants out, all on one clock (the grid's: the shared clock, or a
/// local one in a standalone measurement); the shell calls stream-on when told.
public struct StartAlignment: Sendable, Hashable {
    public let rate: FrameRate
    /// How soon after deciding the stream-on instant may fall: the shell needs the time
    /// to stop the camera and wait.
    public var marginNanoseconds: Int64 = 30_000_000

    public init(rate: FrameRate) {
        self.rate = rate
    }

    /// Starts in all at one Prepare: the measuring one and up to two aligned ones.
    public static let mostStarts = 3
    /// An aligned start this near the grid needs no other.
    public var toleranceNanoseconds: Int64 = 500_000

    public func isOnGrid(_ phaseNanoseconds: Int64) -> Bool { abs(phaseNanoseconds) <= toleranceNanoseconds }

    /// A driver numbers frames from 0 at stream-on; a first frame numbered higher came
    /// after ones the driver skipped (a few at most: more is a driver that counts on).
    public static let mostSkippedAtStart: UInt32 = 4

    /// The start latency: from the stream-on call to the first frame's stamp, less the
    /// periods of any frames the driver skipped before it.
    public func latency(streamOnNanoseconds: Int64, firstStampNanoseconds: Int64, firstSequence: UInt32) -> Int64 {
        let skipped = firstSequence <= Self.mostSkippedAtStart ? Int64(firstSequence) : 0
        return firstStampNanoseconds - streamOnNanoseconds - skipped * rate.periodNanoseconds
    }

    /// When to call stream-on.
    public struct Plan: Sendable, Hashable {
        /// The stream-on instant, on the grid's clock.
        public var streamOnNanoseconds: Int64
        /// The grid instant the first frame is meant to land on.
        public var firstFrameNanoseconds: Int64
    }

    /// The earliest grid instant whose stream-on falls at least the margin after `now`.
    public func plan(latencyNanoseconds latency: Int64, nowNanoseconds now: Int64) -> Plan {
        let grid = GenlockGrid(rate: rate)
        let frame = grid.frameIndex(atOrAfter: now + marginNanoseconds + latency)
        let first = grid.sharedInstant(ofFrame: frame)
        return Plan(streamOnNanoseconds: first - latency, firstFrameNanoseconds: first)
    }

    /// A stamp minus the nearest grid instant (negative: before it).
    public func phase(ofStampNanoseconds stamp: Int64) -> Int64 {
        GenlockGrid(rate: rate).offsetFromNearestFrame(stamp)
    }

    /// What one aligned start did, for the log, the pre-flight and the measurement.
    public struct Report: Sendable, Hashable {
        public var latencyNanoseconds: Int64
        /// The measuring start's first frame against the grid: what an unaligned start gives.
        public var unalignedPhaseNanoseconds: Int64
        /// The last aligned start's first frame against the grid.
        public var alignedPhaseNanoseconds: Int64
        /// Aligned starts made (a second when the first missed the tolerance).
        public var starts = 0

        public init(latencyNanoseconds: Int64, unalignedPhaseNanoseconds: Int64, alignedPhaseNanoseconds: Int64) {
            (self.latencyNanoseconds, self.unalignedPhaseNanoseconds, self.alignedPhaseNanoseconds)
                = (latencyNanoseconds, unalignedPhaseNanoseconds, alignedPhaseNanoseconds)
        }

        public var sentence: String {
            "first frame started \(Self.ms(alignedPhaseNanoseconds)) from the grid (start latency "
                + "\(Self.ms(latencyNanoseconds, signed: false)); unaligned it was \(Self.ms(unalignedPhaseNanoseconds)))"
        }

        private static func ms(_ nanoseconds: Int64, signed: Bool = true) -> String {
            let tenths = (Double(nanoseconds) / 100_000).rounded()
            return (signed && tenths > 0 ? "+" : "") + String(tenths / 10) + " ms"
        }
    }
}
