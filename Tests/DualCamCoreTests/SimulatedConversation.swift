import DualCamTestSupport
@testable import DualCamCore

/// A conversation made of tones for the director's core tests: each person a voice
/// (harmonics of their own pitch, cut into syllables and words), each mic hearing its
/// person loud and every other person `crosstalkDB` down (and 2 ms late), over white room
/// noise. Not speech, but what the director looks at (band energy rising and falling at
/// the pace of syllables, in every mic at once) is as speech makes it. The espeak-ng test
/// in the system tests is the one with real voices.
struct SimulatedConversation {
    enum Sound {
        /// Syllables of 150 ms, 50 ms apart, a 200 ms pause every five (a word gap).
        case turn
        /// A single broadband burst of 250 ms falling away.
        case cough
        /// Two syllables of 200 ms, 100 ms apart: "mm-hm".
        case backChannel
        /// Five short syllables of 100 ms, 80 ms apart.
        case laugh
    }

    struct Event {
        var person: Int
        var start: Double
        var end: Double
        var sound: Sound
    }

    var people: Int
    var sampleRate = 16000
    /// The standard conversations' names, by which their rendering is kept (nil: none).
    var name: String? = nil
    var length: Double
    var events: [Event]

    var turns: [DirectorScore.Turn] {
        events.filter { if case .turn = $0.sound { true } else { false } }
            .map { DirectorScore.Turn(person: $0.person, start: $0.start, end: $0.end) }
    }

    var nonTurns: [DirectorScore.Turn] {
        events.filter { if case .turn = $0.sound { false } else { true } }
            .map { DirectorScore.Turn(person: $0.person, start: $0.start, end: $0.end) }
    }

    /// Per mic, mono samples: voices at about −20 dBFS, noise at `noiseDBFS` RMS.
    func render(crosstalkDB: Double, noiseDBFS: Double = -45, seed: UInt64 = 1) -> [[Float]] {
        let count = Int(length * Double(sampleRate))
        let dry = (0..<people).map { voice(of: $0, count: count, seed: seed &+ UInt64($0)) }
        let leak = Float(power10(-crosstalkDB / 20))
        let delay = sampleRate / 500
        var random = SplitMix64(seed: seed &* 7919)
        // Uniform noise of RMS r needs a half-width of r·√3.
        let noise = Float(power10(noiseDBFS / 20) * 1.732_050_8)
        return (0..<people).map { mic in
            var out = [Float](repeating: 0, count: count)
            for n in 0..<count {
                var sample = dry[mic][n]
                if n >= delay { for other in 0..<people where other != mic { sample += leak * dry[other][n - delay] } }
                out[n] = sample + noise * Float(random.unit() * 2 - 1)
            }
            return out
        }
    }

    private func voice(of person: Int, count: Int, seed: UInt64) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        // One period of a buzz with 24 harmonics falling 6 dB an octave: a vowel's spectrum
        // in the small.
        let table: [Float] = (0..<1024).map { i in
            var v = 0.0
            for k in 1...24 { v += Sinusoid.sin(turns: Double(k * i) / 1024) / Double(k) }
            return Float(v * 0.09)
        }
        let pitch = [118.0, 205.0, 150.0, 240.0][person % 4]
        var random = SplitMix64(seed: seed)
        for event in events where event.person == person {
            for (start, length, gain) in syllables(of: event) {
                let first = Int(start * Double(sampleRate)), n = Int(length * Double(sampleRate))
                var phase = 0.0
                for i in 0..<n where first + i < count {
                    // A raised-cosine envelope: no click to fool the detector.
                    let envelope = 0.5 - 0.5 * Sinusoid.cos(turns: Double(i) / Double(n))
                    let sample: Float
                    if case .cough = event.sound {
                        sample = Float(random.unit() * 2 - 1) * 0.5 * Float(1 - Double(i) / Double(n))
                    } else {
                        phase += pitch / Double(sampleRate)
                        sample = table[Int((phase - phase.rounded(.down)) * 1024) & 1023]
                    }
                    out[first + i] += sample * Float(envelope * gain)
                }
            }
        }
        return out
    }

    private func syllables(of event: Event) -> [(start: Double, length: Double, gain: Double)] {
        switch event.sound {
        case .cough: return [(event.start, 0.25, 1)]
        case .backChannel: return [(event.start, 0.2, 0.8), (event.start + 0.3, 0.2, 0.8)]
        case .laugh: return (0..<5).map { (event.start + Double($0) * 0.18, 0.1, 0.9) }
        case .turn:
            var out: [(Double, Double, Double)] = []
            var t = event.start, i = 0
            while t + 0.15 <= event.end {
                out.append((t, 0.15, [1.0, 0.7, 0.85, 0.6, 0.9][i % 5]))
                t += i % 5 == 4 ? 0.35 : 0.2
                i += 1
            }
            return out
        }
    }

    private func power10(_ x: Double) -> Double {
        // 10^x by squaring 10^(x/64) from its series: plenty for levels in a test.
        var y = 1.0, term = 1.0
        let z = x * 2.302_585_092_994_046 / 64
        for k in 1...12 { term *= z / Double(k); y += term }
        for _ in 0..<6 { y *= y }
        return y
    }
}

extension SimulatedConversation {
    /// A two-person interview: turns, a back-channel under a turn, a cough, a laugh, an
    /// overlap of 3 s and a silence of 4 s.
    static let interview = SimulatedConversation(people: 2, name: "interview", length: 46, events: [
        Event(person: 0, start: 0.5, end: 8.0, sound: .turn),
        Event(person: 1, start: 8.6, end: 16.0, sound: .turn),
        Event(person: 0, start: 12.0, end: 12.5, sound: .backChannel),
        Event(person: 0, start: 16.5, end: 22.0, sound: .turn),
        Event(person: 1, start: 18.0, end: 18.25, sound: .cough),
        Event(person: 1, start: 22.3, end: 30.0, sound: .turn),
        Event(person: 0, start: 27.0, end: 30.5, sound: .turn),
        Event(person: 1, start: 34.5, end: 40.0, sound: .turn),
        Event(person: 0, start: 37.0, end: 37.9, sound: .laugh),
        Event(person: 0, start: 40.4, end: 46.0, sound: .turn),
        Event(person: 1, start: 42.5, end: 43.0, sound: .backChannel),
    ])

    /// Four people round a table, each turn to the next, with a back-channel and an
    /// overlap.
    static let roundTable = SimulatedConversation(people: 4, name: "round table", length: 40, events: [
        Event(person: 0, start: 0.5, end: 7.0, sound: .turn),
        Event(person: 2, start: 7.5, end: 14.0, sound: .turn),
        Event(person: 1, start: 10.0, end: 10.5, sound: .backChannel),
        Event(person: 3, start: 14.6, end: 21.0, sound: .turn),
        Event(person: 1, start: 21.5, end: 29.0, sound: .turn),
        Event(person: 0, start: 26.0, end: 29.5, sound: .turn),
        Event(person: 3, start: 30.0, end: 30.25, sound: .cough),
        Event(person: 2, start: 31.0, end: 40.0, sound: .turn),
    ])
}
