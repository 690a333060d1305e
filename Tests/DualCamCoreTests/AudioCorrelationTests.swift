import DualCamTestSupport
import Testing
@testable import DualCamCore

/// Speech-like test material: noise bursts of random loudness and length, low-passed to a
/// voice's band, separated by silences.
private func voice(seconds: Double, sampleRate: Int, seed: UInt64) -> [Float] {
    var rng = SplitMix64(seed: seed)
    let count = Int(seconds * Double(sampleRate))
    var out = [Float](repeating: 0, count: count)
    var i = Int(rng.unit() * 0.3 * Double(sampleRate))
    // One-pole low-pass at about 1.5 kHz, twice, for a speech-like spectrum.
    let pole = 1 - 2 * Double.pi * 1500 / Double(sampleRate)
    var lp1 = 0.0, lp2 = 0.0
    while i < count {
        let length = Int((0.08 + rng.unit() * 0.3) * Double(sampleRate))
        let loudness = 0.05 + rng.unit() * 0.4
        for j in i..<min(count, i + length) {
            lp1 = pole * lp1 + (1 - pole) * (rng.unit() * 2 - 1)
            lp2 = pole * lp2 + (1 - pole) * lp1
            out[j] = Float(loudness * lp2 * 4)
        }
        i += length + Int((0.05 + rng.unit() * 0.4) * Double(sampleRate))
    }
    return out
}

/// `x` read at the instants `t·stretch − delay` (in samples), by linear interpolation:
/// a copy in which everything happens `delay` later and runs `stretch` slower.
private func resampled(_ x: [Float], delaySamples delay: Double, stretch: Double = 1) -> [Float] {
    (0..<x.count).map { n in
        let position = Double(n) / stretch - delay
        let i = Int(position.rounded(.down))
        guard i >= 0, i + 1 < x.count else { return 0 }
        let f = Float(position - Double(i))
        return x[i] * (1 - f) + x[i + 1] * f
    }
}

private func mix(_ a: [Float], _ b: [Float], bGain: Float) -> [Float] {
    zip(a, b).map { $0 + bGain * $1 }
}

@Suite struct AudioCorrelationTests {
    static let rate = 48_000

    @Test(arguments: [12.3, -12.3, 0.04, -87.65])
    func findsTheDelayOfOneVoice(milliseconds: Double) throws {
        let reference = voice(seconds: 4, sampleRate: Self.rate, seed: 21)
        let other = resampled(reference, delaySamples: milliseconds * 48)
        let found = try #require(AudioCorrelation.offset(reference: reference, other: other, sampleRate: Self.rate,
                                                         maxLagNanoseconds: 200_000_000))
        print("AUDIO-CORR \(milliseconds) ms -> \(Double(found.nanoseconds) / 1e6) ms, confidence \(found.confidence)")
        #expect((Double(found.nanoseconds) - milliseconds * 1e6).magnitude <= 200_000, "\(found.nanoseconds) ns")
        #expect(found.confidence > 0.8)
        #expect(found.confidence <= 1)
    }

    @Test func eachMicrophoneHearsBothVoices() throws {
        let a = voice(seconds: 5, sampleRate: Self.rate, seed: 1), b = voice(seconds: 5, sampleRate: Self.rate, seed: 2)
        let quarter: Float = 0.251_188_64  // −12 dB
        let micA = mix(a, b, bGain: quarter)
        let micB = resampled(mix(b, a, bGain: quarter), delaySamples: 12.3 * 48)
        let found = try #require(AudioCorrelation.offset(reference: micA, other: micB, sampleRate: Self.rate,
                                                         maxLagNanoseconds: 100_000_000))
        print("AUDIO-CORR mixed -> \(Double(found.nanoseconds) / 1e6) ms, confidence \(found.confidence)")
        #expect((Double(found.nanoseconds) - 12.3e6).magnitude <= 200_000, "\(found.nanoseconds) ns")
        #expect(found.confidence > 0.2)
    }

    @Test func invertedPolarityStillGivesTheOffset() throws {
        let reference = voice(seconds: 3, sampleRate: Self.rate, seed: 8)
        let other = resampled(reference, delaySamples: 5 * 48).map { -0.5 * $0 }
        let found = try #require(AudioCorrelation.offset(reference: reference, other: other, sampleRate: Self.rate,
                                                         maxLagNanoseconds: 50_000_000))
        #expect((found.nanoseconds - 5_000_000).magnitude <= 200_000)
        #expect(found.confidence > 0.8)
    }

    @Test func silenceHasNoOffset() {
        let reference = voice(seconds: 2, sampleRate: Self.rate, seed: 5)
        let silent = [Float](repeating: 0, count: reference.count)
        #expect(AudioCorrelation.offset(reference: reference, other: silent, sampleRate: Self.rate,
                                        maxLagNanoseconds: 100_000_000) == nil)
        #expect(AudioCorrelation.offset(reference: silent, other: reference, sampleRate: Self.rate,
                                        maxLagNanoseconds: 100_000_000) == nil)
        #expect(AudioCorrelation.offset(reference: [], other: [], sampleRate: Self.rate, maxLagNanoseconds: 1) == nil)
        #expect(AudioCorrelation.driftReport(reference: silent, other: silent, sampleRate: Self.rate, windowSeconds: 1,
                                             maxLagNanoseconds: 100_000_000) == nil)
    }

    @Test func driftOfAHundredPPMOverAMinute() throws {
        let reference = voice(seconds: 60, sampleRate: Self.rate, seed: 99)
        let other = resampled(reference, delaySamples: 3 * 48, stretch: 1 + 100e-6)
        let report = try #require(AudioCorrelation.driftReport(reference: reference, other: other, sampleRate: Self.rate,
                                                               windowSeconds: 4, maxLagNanoseconds: 50_000_000))
        // Content at time t in `reference` is at t·(1 + 1e-4) + 3 ms in `other`.
        let expected = 100e-6 * report.spanSeconds * 1e9
        print("AUDIO-DRIFT-REPORT start \(report.start), end \(report.end), drift \(Double(report.driftNanoseconds) / 1e6) ms, "
              + "expected \(expected / 1e6) ms over \(report.spanSeconds) s")
        #expect((Double(report.driftNanoseconds) - 6e6).magnitude <= 1e6)
        #expect((Double(report.driftNanoseconds) - expected).magnitude <= 200_000)
        #expect((report.start.nanoseconds - 3_200_000).magnitude <= 200_000)  // 3 ms + 1e-4 × 2 s
        #expect(report.spanSeconds == 56)
        // 100 ppm moves the content 0.4 ms across a 4 s window, which blurs the peak.
        #expect(report.start.confidence > 0.6 && report.end.confidence > 0.6)
    }
}
