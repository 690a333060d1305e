/// Capture instants for frames that come without timestamps (a pipe from rpicam-vid):
/// the frame count at the nominal rate, steered slowly towards the arrival times.
///
/// Arrival times alone carry the pipe's jitter, and a burst (a stalled reader, a file
/// piped in) would stamp many frames with one instant. The count alone drifts with the
/// camera's true rate and misses lost frames. So each frame is stamped one period after
/// the previous one, then corrected by a small fraction of how far its arrival is off;
/// a frame arriving more than 1.5 periods late means frames were lost upstream, and the
/// stamp jumps to it; one arriving more than half a period early is part of a burst (a
/// live camera's frames cannot come that early) and corrects nothing.
public struct ArrivalStamper: Sendable {
    public let periodNanoseconds: Int64
    /// Fraction of the arrival error applied per frame (a time constant of 1/gain frames).
    public let gain: Double
    private var last: Int64?

    public init(rate: FrameRate, gain: Double = 0.02) {
        self.periodNanoseconds = rate.periodNanoseconds
        self.gain = gain
    }

    /// The stamp for a frame that arrived at `arrival`, and how many frames appear lost
    /// just before it.
    public mutating func stamp(arrival: Int64) -> (instant: Int64, lostBefore: Int) {
        guard let previous = last else {
            last = arrival
            return (arrival, 0)
        }
        let expected = previous + periodNanoseconds
        let error = arrival - expected
        let limit = periodNanoseconds * 3 / 2
        let instant: Int64
        var lost = 0
        if error > limit {
            lost = Int((Double(error) / Double(periodNanoseconds)).rounded())
            instant = arrival
        } else if error >= -periodNanoseconds / 2 {
            instant = expected + Int64((Double(error) * gain).rounded())
        } else {
            instant = expected
        }
        last = instant
        return (instant, lost)
    }
}
