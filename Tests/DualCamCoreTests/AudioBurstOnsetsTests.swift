import DualCamTestSupport
import Testing
@testable import DualCamCore

@Suite struct AudioBurstOnsetsTests {
    /// `seconds` of the synthetic source sampled at `rate`, sample 0 at true time `start`.
    private func recording(seconds: Double, rate: Int, startNanoseconds start: Int64) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { i in
            ToneBurst.sample(atTrueNanoseconds: start + Int64((Double(i) * 1e9 / Double(rate)).rounded()))
        }
    }

    /// Expected onsets, relative to sample 0, for a recording starting at `start`.
    private func expected(seconds: Double, startNanoseconds start: Int64) -> [Int64] {
        let second: Int64 = 1_000_000_000
        let firstWhole = (start + second - 1) / second * second
        return Array(stride(from: firstWhole - start, to: Int64(seconds * 1e9) - ToneBurst.durationNanoseconds, by: Int(second)))
    }

    private func check(_ found: [Int64], _ wanted: [Int64], label: String) {
        #expect(found.count == wanted.count, "\(label): \(found)")
        let worst = zip(found, wanted).map { ($0 - $1).magnitude }.max() ?? 0
        print("AUDIO-ONSETS \(label): \(found.count) bursts, worst error \(Double(worst) / 1000) µs")
        #expect(worst <= 100_000, "\(label): \(found) vs \(wanted)")
    }

    @Test(arguments: [48_000, 44_100])
    func findsEachBurstWithinATenthOfAMillisecond(rate: Int) {
        let samples = recording(seconds: 5, rate: rate, startNanoseconds: 300_000_000)
        let wanted = expected(seconds: 5, startNanoseconds: 300_000_000)
        #expect(wanted == [700_000_000, 1_700_000_000, 2_700_000_000, 3_700_000_000, 4_700_000_000])
        check(BurstOnsets.find(samples: samples, sampleRate: rate), wanted, label: "\(rate) Hz clean")
    }

    @Test(arguments: [48_000, 44_100])
    func findsThemUnderNoiseAtMinusFiftyDBFS(rate: Int) {
        var rng = SplitMix64(seed: UInt64(rate))
        // Uniform noise of RMS 10^(−50/20): amplitude √3 times that.
        let amplitude = 0.003_162_277_66 * 3.0.squareRoot()
        let start: Int64 = 1_234_567_000
        let samples = recording(seconds: 5, rate: rate, startNanoseconds: start).map {
            $0 + Float((rng.unit() * 2 - 1) * amplitude)
        }
        check(BurstOnsets.find(samples: samples, sampleRate: rate), expected(seconds: 5, startNanoseconds: start),
              label: "\(rate) Hz noisy")
    }

    @Test func ignoresLowPreEchoAndABurstCutByTheStart() {
        let rate = 48_000
        // The recording starts 5 ms into a burst, whose onset is therefore not in it, and ends
        // 5 ms into another.
        var samples = recording(seconds: 3, rate: rate, startNanoseconds: 5_000_000)
        // Pre-echo at −34 dBFS, above a plain halfway threshold, during the 4 ms before each later onset.
        for onset in [995_000_000, 1_995_000_000] as [Int64] {
            let at = Int(onset * Int64(rate) / 1_000_000_000)
            for i in (at - 192)..<at { samples[i] = (i % 2 == 0 ? 1 : -1) * 0.02 }
        }
        // The burst cut by the end still has its onset in the recording.
        check(BurstOnsets.find(samples: samples, sampleRate: rate), [995_000_000, 1_995_000_000, 2_995_000_000],
              label: "pre-echo")
    }

    @Test func silenceHasNoBursts() {
        #expect(BurstOnsets.find(samples: [Float](repeating: 0, count: 48_000), sampleRate: 48_000).isEmpty)
        #expect(BurstOnsets.find(samples: [], sampleRate: 48_000).isEmpty)
    }
}
