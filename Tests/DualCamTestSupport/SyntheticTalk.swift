import Foundation

/// Two people talking, as a function of true time rather than of a sample grid, so that a
/// recorder with its own offset and crystal error is simulated exactly: its samples are
/// the same talk read at its own instants, with no resampler between that could bias a
/// figure. Voiced syllables (a buzz of eight harmonics, its pitch gliding) of random
/// lengths and gaps, hissed consonants, and pauses between phrases.
public struct SyntheticTalk: Sendable {
    struct Syllable: Sendable {
        var person: Int
        var start: Double
        var length: Double
        var pitch: Double
        var glide: Double
        var gain: Double
        /// A consonant: fixed tones between 2 and 3.8 kHz instead of the buzz.
        var hiss: [(frequency: Double, phase: Double)]
    }

    static let buzz: [Double] = (0..<2048).map { i in
        var v = 0.0
        for k in 1...8 { v += Foundation.sin(2 * Double.pi * Double(k * i) / 2048) / Double(k) }
        return v * 0.4
    }

    static let sine: [Double] = (0...4096).map { Foundation.sin(2 * Double.pi * Double($0) / 4096) }

    /// sin(2π·turns) from the table, interpolated: the C library's is too slow for
    /// millions of samples in a debug build.
    static func sin(turns: Double) -> Double {
        let x = (turns - turns.rounded(.down)) * 4096
        let i = Int(x), frac = x - Double(i)
        return sine[i] * (1 - frac) + sine[i + 1] * frac
    }

    let syllables: [Syllable]

    /// Talk from `from` to `to` seconds of true time; the turn passes between the people
    /// every few seconds.
    public init(from: Double, to: Double, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var out: [Syllable] = []
        var t = from
        var person = 0
        while t < to {
            let phraseEnd = t + 1.5 + random.unit() * 4
            let base = person == 0 ? 115.0 : 210.0
            while t < phraseEnd {
                let length = 0.08 + random.unit() * 0.27
                let hiss = random.unit() < 0.25
                    ? (0..<6).map { _ in (frequency: 2000 + random.unit() * 1800, phase: random.unit()) } : []
                out.append(Syllable(person: person, start: t, length: length, pitch: base * (0.8 + random.unit() * 0.45),
                                    glide: (random.unit() - 0.5), gain: 0.1 + random.unit() * 0.2, hiss: hiss))
                t += length + 0.03 + random.unit() * 0.3
            }
            t += 0.3 + random.unit() * 1.5
            if random.unit() < 0.7 { person = 1 - person }
        }
        syllables = out
    }

    /// What a microphone heard: sample `n` taken at true time `start + n / (rate·(1 + ppm·1e-6))`,
    /// `count` samples, each person at their gain and as late as their path to it.
    public func render(start: Double, count: Int, rate: Int = 8000, driftPPM: Double = 0,
                gains: [Double] = [1, 1], delays: [Double] = [0, 0]) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        let perSecond = Double(rate) * (1 + driftPPM * 1e-6)
        for var s in syllables {
            s.start += delays[s.person]
            let first = max(0, Int(((s.start - start) * perSecond).rounded(.up)))
            let last = min(count - 1, Int(((s.start + s.length - start) * perSecond).rounded(.down)))
            guard first <= last else { continue }
            let gain = s.gain * gains[s.person]
            for n in first...last {
                let tau = start + Double(n) / perSecond - s.start
                let envelope = Self.sin(turns: tau / s.length / 2)
                var v = 0.0
                if s.hiss.isEmpty {
                    let turns = s.pitch * tau * (1 + 0.5 * s.glide * tau)
                    let x = (turns - turns.rounded(.down)) * 2048
                    let i = Int(x), frac = x - Double(i)
                    v = Self.buzz[i & 2047] * (1 - frac) + Self.buzz[(i + 1) & 2047] * frac
                } else {
                    for tone in s.hiss { v += 0.3 * Self.sin(turns: tone.frequency * tau + tone.phase) }
                }
                out[n] += Float(gain * envelope * v)
            }
        }
        return out
    }

    /// A small room (four combs and two all-passes, Schroeder's reverb, delays for 8 kHz)
    /// mixed half wet.
    public static func reverberate(_ x: [Float]) -> [Float] {
        let combs = [238, 297, 329, 350]
        var wet = [Float](repeating: 0, count: x.count)
        for delay in combs {
            var line = [Float](repeating: 0, count: x.count)
            for n in x.indices { line[n] = x[n] + (n >= delay ? 0.7 * line[n - delay] : 0) }
            for n in x.indices { wet[n] += line[n] / 4 }
        }
        for (delay, g) in [(40, Float(0.7)), (14, Float(0.7))] {
            var out = [Float](repeating: 0, count: x.count)
            for n in x.indices {
                let delayedIn = n >= delay ? wet[n - delay] : 0, delayedOut = n >= delay ? out[n - delay] : 0
                out[n] = -g * wet[n] + delayedIn + g * delayedOut
            }
            wet = out
        }
        return x.indices.map { 0.5 * x[$0] + 0.5 * wet[$0] }
    }

    /// White noise `dB` below the signal's RMS, added.
    public static func noisy(_ x: [Float], dB: Double, seed: UInt64) -> [Float] {
        var random = SplitMix64(seed: seed)
        let rms = (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(x.count, 1))).squareRoot()
        let amplitude = rms * pow(10, dB / 20) * 3.0.squareRoot()
        return x.map { $0 + Float(amplitude * (random.unit() * 2 - 1)) }
    }
}
