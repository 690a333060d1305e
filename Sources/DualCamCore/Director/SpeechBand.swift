/// The band where voices carry their energy and rooms carry little of theirs: a
/// second-order high-pass at 150 Hz (rumble, traffic, handling noise, a desk knocked) and
/// a second-order low-pass at 4 kHz (hiss, sibilance, which is loud in every mic alike).
/// Butterworth sections (RBJ's cookbook), coefficients from the core's own `Sinusoid`.
struct SpeechBand: Sendable {
    private var highPass: Biquad
    private var lowPass: Biquad

    init(sampleRate: Int) {
        highPass = Biquad(highPassAt: 150, sampleRate: Double(sampleRate))
        lowPass = Biquad(lowPassAt: min(4000, Double(sampleRate) * 0.45), sampleRate: Double(sampleRate))
    }

    /// The mean power of `samples` in the band (full scale sine: 0.5).
    mutating func power(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for x in samples {
            let y = lowPass.step(highPass.step(Double(x)))
            sum += y * y
        }
        return sum / Double(samples.count)
    }
}

/// One second-order IIR section, transposed direct form II.
struct Biquad: Sendable {
    private let b0, b1, b2, a1, a2: Double
    private var z1 = 0.0, z2 = 0.0

    private init(b: (Double, Double, Double), a: (Double, Double, Double)) {
        b0 = b.0 / a.0; b1 = b.1 / a.0; b2 = b.2 / a.0
        a1 = a.1 / a.0; a2 = a.2 / a.0
    }

    /// Q = 1/√2: maximally flat.
    private static let q = 0.707_106_781_186_547_5

    init(highPassAt frequency: Double, sampleRate: Double) {
        let turns = frequency / sampleRate
        let cosine = Sinusoid.cos(turns: turns), alpha = Sinusoid.sin(turns: turns) / (2 * Self.q)
        self.init(b: ((1 + cosine) / 2, -(1 + cosine), (1 + cosine) / 2), a: (1 + alpha, -2 * cosine, 1 - alpha))
    }

    init(lowPassAt frequency: Double, sampleRate: Double) {
        let turns = frequency / sampleRate
        let cosine = Sinusoid.cos(turns: turns), alpha = Sinusoid.sin(turns: turns) / (2 * Self.q)
        self.init(b: ((1 - cosine) / 2, 1 - cosine, (1 - cosine) / 2), a: (1 + alpha, -2 * cosine, 1 - alpha))
    }

    mutating func step(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}
