import Testing
@testable import DualCamCore

/// The true-peak limiter and the loudness leveller, on signals whose answers are known.
@Suite struct ProgrammeLoudnessTests {
    /// A stereo sine of `amplitude` at `frequency` Hz, at 48 kHz.
    func sine(_ frequency: Double, amplitude: Float, seconds: Double) -> [Float] {
        let frames = Int(seconds * 48000)
        var out = [Float](repeating: 0, count: frames * 2)
        for n in 0..<frames {
            // Phase offset so the samples straddle the peaks: the true peak lies between them.
            let v = amplitude * Float(Sinusoid.sin(turns: Double(n) * frequency / 48000 + 0.125))
            out[2 * n] = v
            out[2 * n + 1] = v
        }
        return out
    }

    /// The highest |value| of a 16× upsampled copy (linear interpolation between sinc
    /// interpolated points is overkill here: the test sine is smooth), as a reference.
    func referencePeak(_ x: [Float]) -> Float {
        var peak: Float = 0
        let frames = x.count / 2
        for n in 8..<(frames - 8) {
            for step in 0..<16 {
                let t = Double(step) / 16
                var v = 0.0
                for k in -8...8 {
                    let d = Double(k) - t
                    let sinc = d == 0 ? 1 : Sinusoid.sin(turns: d / 2) / (Double.pi * d)
                    v += sinc * (0.5 + 0.5 * Sinusoid.cos(turns: d / 18)) * Double(x[2 * (n + k)])
                }
                peak = max(peak, Float(abs(v)))
            }
        }
        return peak
    }

    @Test func aHotSineComesOutUnderTheCeilingAndNoFrameIsLost() {
        let input = sine(11025 * 0.5, amplitude: 1.2, seconds: 0.5) // a quarter of the rate: peaks between samples
        var limiter = TruePeakLimiter(channels: 2, ceiling: 0.84, lookahead: 96, releaseFrames: 4800)
        var out: [Float] = []
        for chunk in stride(from: 0, to: input.count, by: 2000) {
            out += limiter.process(Array(input[chunk..<min(chunk + 2000, input.count)]))
        }
        out += limiter.flush()
        #expect(out.count == input.count)
        // Past the ramp-in (the first lookahead), every true peak is at the ceiling or under it.
        let steady = Array(out[(200 * 2)...])
        #expect(referencePeak(steady) <= 0.84 * 1.02, "\(referencePeak(steady))")
        #expect(limiter.framesLimited > 0)
    }

    @Test func aQuietSignalPassesUntouchedAfterTheLatency() {
        let input = sine(440, amplitude: 0.25, seconds: 0.2)
        var limiter = TruePeakLimiter(channels: 2, ceiling: 0.84, lookahead: 96, releaseFrames: 4800)
        let out = limiter.process(input) + limiter.flush()
        #expect(out == input)
        #expect(limiter.framesLimited == 0)
    }

    @Test func theLevellerReachesTheTargetAndHoldsThroughSilence() {
        var leveller = LoudnessLeveller(targetLUFS: -16)
        // A mix at −30 LUFS: open loop first, then the written file at −30 + gain.
        var gain = 0.0
        for i in 0..<300 {
            let audible = Double(i) * 0.1
            gain = leveller.block(mixIntegratedLUFS: -30, mixShortTermLUFS: -30,
                                  writtenIntegratedLUFS: audible >= 3 ? -30 + gain : nil, audibleSeconds: audible)
        }
        #expect(abs(gain - 14) < 0.2, "\(gain)")
        // Silence: nothing to read, the gain holds.
        #expect(leveller.block(mixIntegratedLUFS: nil, mixShortTermLUFS: nil, writtenIntegratedLUFS: nil, audibleSeconds: 30) == gain)
        // A limiter that takes 10 dB off: the make-up stops 4 dB above the open-loop gain.
        for _ in 0..<300 {
            gain = leveller.block(mixIntegratedLUFS: -30, mixShortTermLUFS: -30, writtenIntegratedLUFS: -40, audibleSeconds: 60)
        }
        #expect(abs(gain - 18) < 0.2, "\(gain)")
    }
}
