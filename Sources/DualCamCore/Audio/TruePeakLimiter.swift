/// Keeps the programme's true peak (the peak between samples too, as a DAC or a lossy
/// codec reconstructs it; ITU-R BS.1770 annex 2) under a ceiling, with a short lookahead
/// so that the gain comes down gradually before a peak instead of clipping it.
///
/// Each frame's true peak is estimated at four phases between samples by a windowed-sinc
/// interpolator. A frame that would exceed the ceiling asks the gain, over the lookahead
/// before it, to ramp down to what it needs; the gain recovers exponentially after.
/// Output lags input by `latency` frames; `flush` hands out the rest at the end.
public struct TruePeakLimiter: Sendable {
    public let channels: Int
    public let ceiling: Float
    /// Frames of lookahead over which the gain ramps down.
    public let lookahead: Int
    private let releasePerFrame: Float
    /// Interleaved frames not yet handed out (the lookahead and the interpolator's reach).
    private var pending: [Float] = []
    /// Frames already handed out, counting from the first input.
    private var emitted = 0
    /// Upcoming spans of frames that need less than unity gain: from `frame` through
    /// `until`, at most `gain`.
    private var demands: [(frame: Int, until: Int, gain: Float)] = []
    /// Index of the next frame whose true peak is to be estimated.
    private var assessed = 0
    private var gain: Float = 1
    private var received = 0
    public private(set) var framesLimited = 0

    /// Taps of the interpolator on each side of the gap it fills.
    static let reach = 4
    /// Three fractional phases (¼, ½, ¾) × 2·reach taps: sinc under a Hann window.
    private static let phases: [[Float]] = (1...3).map { phase in
        let t = Double(phase) / 4
        return (0..<(2 * reach)).map { k in
            let x = Double(k - reach + 1) - t  // distance from the tap to the point, in samples
            let sinc = Sinusoid.sin(turns: x / 2) / (Double.pi * x)
            let window = 0.5 + 0.5 * Sinusoid.cos(turns: x / Double(2 * reach))
            return Float(sinc * window)
        }
    }

    /// The most any interpolated point can exceed the largest sample around it: a frame
    /// whose neighbourhood stays under ceiling / this needs no interpolation at all.
    private static let overshootBound: Float = phases.map { $0.reduce(0) { $0 + abs($1) } }.max() ?? 2

    /// Demands before this index are behind the output.
    private var firstDemand = 0

    public var latency: Int { lookahead + Self.reach }

    /// `ceiling` linear (0.84 for −1.5 dBTP), `lookahead` and `releaseFrames` (the gain
    /// recovers by 1 − 1/e over it) in frames.
    public init(channels: Int, ceiling: Float, lookahead: Int, releaseFrames: Int) {
        self.channels = channels
        self.ceiling = ceiling
        self.lookahead = max(1, lookahead)
        releasePerFrame = 1 / Float(max(releaseFrames, 1))
    }

    /// Takes interleaved frames; returns the frames `latency` behind them, limited.
    public mutating func process(_ input: [Float]) -> [Float] {
        pending += input
        received += input.count / channels
        // Estimate every frame whose interpolator reach is complete.
        while assessed + Self.reach < received { assess(assessed); assessed += 1 }
        return emit(upTo: received - latency)
    }

    /// The frames still held, limited (the end of the programme follows them: silence).
    public mutating func flush() -> [Float] {
        pending += [Float](repeating: 0, count: Self.reach * channels)
        let end = received
        received += Self.reach
        while assessed < end { assess(assessed); assessed += 1 }
        received = end
        let out = emit(upTo: end)
        pending.removeAll()
        return out
    }

    private func sample(_ frame: Int, _ channel: Int) -> Float {
        let at = (frame - emitted) * channels + channel
        return at >= 0 && at < pending.count ? pending[at] : 0
    }

    private mutating func assess(_ frame: Int) {
        // Most frames of a programme are far under the ceiling: the samples around them
        // bound every interpolated point, and the interpolation is skipped.
        var around: Float = 0
        for k in 0..<(2 * Self.reach) {
            for c in 0..<channels { around = max(around, abs(sample(frame - Self.reach + 1 + k, c))) }
        }
        guard around * Self.overshootBound > ceiling else { return }
        var peak: Float = 0
        for c in 0..<channels {
            peak = max(peak, abs(sample(frame, c)))
            for taps in Self.phases {
                var v: Float = 0
                for (k, tap) in taps.enumerated() { v += tap * sample(frame - Self.reach + 1 + k, c) }
                peak = max(peak, abs(v))
            }
        }
        guard peak > ceiling else { return }
        let gain = ceiling / peak
        // A demand a few frames after the last one extends its span at the lower gain (a
        // slightly deeper dip), so a long loud passage keeps the list short.
        if let last = demands.last, firstDemand < demands.count, frame - last.until < Self.mergeFrames {
            demands[demands.count - 1].until = frame
            demands[demands.count - 1].gain = min(last.gain, gain)
        } else {
            demands.append((frame, frame, gain))
        }
    }

    private static let mergeFrames = 8

    private mutating func emit(upTo end: Int) -> [Float] {
        guard end > emitted else { return [] }
        var out = [Float](repeating: 0, count: (end - emitted) * channels)
        for n in emitted..<end {
            while firstDemand < demands.count && demands[firstDemand].until < n { firstDemand += 1 }
            if firstDemand > 256 {
                demands.removeFirst(firstDemand)
                firstDemand = 0
            }
            // The gain now: on the ramp towards every peak ahead, and recovering otherwise.
            var wanted = min(1, gain + (1 - gain) * releasePerFrame)
            for d in demands[firstDemand...] {
                if d.frame - n > lookahead { break }
                let distance = Float(max(d.frame - n, 0)) / Float(lookahead)
                wanted = min(wanted, d.gain + (1 - d.gain) * min(distance, 1))
            }
            gain = wanted
            if gain < 1 { framesLimited += 1 }
            for c in 0..<channels { out[(n - emitted) * channels + c] = sample(n, c) * gain }
        }
        pending.removeFirst(min(pending.count, (end - emitted) * channels))
        emitted = end
        return out
    }
}
