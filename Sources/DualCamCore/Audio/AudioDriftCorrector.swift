/// Places a sound card's samples on the session's shared timeline: output sample `n` is
/// meant to be at the shared instant `t0 + n·1e9/outputRate` exactly. The card may run at
/// another nominal rate than the output (44.1 kHz into a 48 kHz track); the resampler
/// that applies a plan converts between them.
///
/// Chunk timestamps jitter by milliseconds, so rather than following each one the corrector
/// fits a line (card samples → shared time) over the last minute and makes the output
/// position follow that line, stretching a chunk by at most ±0.5 % so the correction
/// cannot be heard. Only a jump beyond 20 ms (lost samples, or output ahead of the card)
/// is corrected at once, with silence or by discarding input, and starts a new history.
public struct AudioDriftCorrector: Sendable {
    /// Errors beyond this are not drift but a discontinuity.
    static let hardLimitNanoseconds = 20_000_000.0
    /// History the rate is fitted over.
    static let windowSeconds: Int64 = 60
    /// Uncertainty assumed before any history: cards are within ±100 ppm or so, timestamps
    /// within a millisecond or so; their ratio weighs the prior (see `TimestampLine`).
    static let priorRateSigma = 2e-4
    static let timestampSigmaNanoseconds = 1e6

    private let t0: Int64
    /// Of the output (the session's track).
    private let nanosecondsPerSample: Double
    /// Of the card, nominally.
    private let nanosecondsPerInputSample: Double
    private var line: TimestampLine
    /// Cumulative input samples seen, dropped ones included: the x axis of the line.
    private var inputIndex: Int64 = 0
    /// Set until output is exactly aligned: at the start, and while a hard drop longer
    /// than a chunk is still under way.
    private var aligning = true

    public private(set) var outputPosition: Int64 = 0
    /// Fitted position minus output position at the start of the last planned chunk,
    /// before that chunk's correction, so a gap shows here at its full size.
    public private(set) var lastErrorNanoseconds: Double = 0

    public init(sampleRate: Int, t0SharedNanoseconds: Int64) {
        self.init(inputRate: sampleRate, outputRate: sampleRate, t0SharedNanoseconds: t0SharedNanoseconds)
    }

    public init(inputRate: Int, outputRate: Int, t0SharedNanoseconds: Int64) {
        precondition(inputRate > 0 && outputRate > 0, "sample rates must be positive")
        t0 = t0SharedNanoseconds
        nanosecondsPerSample = 1e9 / Double(outputRate)
        nanosecondsPerInputSample = 1e9 / Double(inputRate)
        let slopeSigma = Self.priorRateSigma * nanosecondsPerInputSample
        line = TimestampLine(
            span: Self.windowSeconds * Int64(inputRate), priorSlope: nanosecondsPerInputSample,
            priorWeight: (Self.timestampSigmaNanoseconds / slopeSigma) * (Self.timestampSigmaNanoseconds / slopeSigma))
    }

    /// The card's rate error against the shared clock, in ppm; positive when it is fast.
    public var ratePPM: Double {
        (nanosecondsPerInputSample / line.slope - 1) * 1e6
    }

    /// `discontinuity`: the source knows samples were lost just before this chunk (an
    /// overrun the driver reported), so a jump in its timestamp is believed at once.
    /// Otherwise a timestamp far off the line is taken for a late stamp (a thread woken
    /// late, a busy machine) and ignored, unless the next chunks confirm the jump.
    public mutating func plan(inputSamples count: Int, firstSampleSharedNanoseconds timestamp: Int64,
                              discontinuity: Bool = false) -> AudioChunkPlan {
        precondition(count >= 0, "negative sample count")
        var plan = AudioChunkPlan(dropInput: 0, silenceBefore: 0, output: 0)
        guard count > 0 else { return plan }
        let first = inputIndex
        inputIndex += Int64(count)

        // Judged against the line before this point joins it: one point barely moves a
        // minute's fit, so a jump would otherwise look like a small error.
        if let miss = line.timestamp(atInput: first, minus: timestamp), miss.magnitude > Self.hardLimitNanoseconds {
            suspects.append(Suspect(input: first, timestamp: timestamp, miss: miss))
            if discontinuity || confirmedJump {
                line.restart()
                for s in suspects { line.add(input: s.input, timestamp: s.timestamp) }
                suspects = []
                aligning = true
            } else {
                outliersIgnored += 1
            }
        } else {
            suspects = []
            line.add(input: first, timestamp: timestamp)
        }

        let start = position(atInput: first)
        let error = start - Double(outputPosition)
        lastErrorNanoseconds = error * nanosecondsPerSample
        let limit = aligning ? 0.5 : Self.hardLimitNanoseconds / nanosecondsPerSample
        if error > limit {
            plan.silenceBefore = Int(Int64(start.rounded()) - outputPosition)
        } else if error < -limit {
            let outputPerInput = line.slope / nanosecondsPerSample
            let wanted = Int((-error / outputPerInput).rounded())
            plan.dropInput = min(count, wanted)
            // A drop longer than the chunk continues into the next one.
            aligning = wanted > count
        }

        let kept = count - plan.dropInput
        if kept > 0 {
            let base = outputPosition + Int64(plan.silenceBefore)
            let target = Int64(position(atInput: inputIndex).rounded()) - base
            // ±0.5 % of the nominal conversion, but at least one sample so that very short
            // chunks can still follow.
            let nominal = Int64((Double(kept) * nanosecondsPerInputSample / nanosecondsPerSample).rounded())
            let give = max(1, nominal / 200)
            plan.output = Int(min(max(target, nominal - give), nominal + give))
            aligning = false
        }
        outputPosition += Int64(plan.silenceBefore + plan.output)
        return plan
    }

    /// Chunks whose timestamps missed the line by more than the hard limit, in a row.
    private struct Suspect: Sendable {
        var input: Int64
        var timestamp: Int64
        var miss: Double
    }
    private var suspects: [Suspect] = []
    /// Late stamps set aside without a correction; a busy machine shows here.
    public private(set) var outliersIgnored = 0
    static let confirmations = 3

    /// The last chunks all missed the line the same way, by amounts that agree: the
    /// card's timeline really moved (samples lost without a report, a clock step).
    private var confirmedJump: Bool {
        guard suspects.count >= Self.confirmations else { return false }
        let misses = suspects.suffix(Self.confirmations).map(\.miss)
        let sameSide = misses.allSatisfy { $0 > 0 } || misses.allSatisfy { $0 < 0 }
        return sameSide && (misses.max()! - misses.min()!) < Self.hardLimitNanoseconds
    }

    /// Where input sample `input` belongs, in output samples from t0 (fractional).
    private func position(atInput input: Int64) -> Double {
        (line.timestamp(atInput: input, minus: t0) ?? 0) / nanosecondsPerSample
    }
}
