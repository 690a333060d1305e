import DualCamMedia
import Foundation
import Testing

/// libebur128 through our wrapper, on EBU Tech 3341's first test signal.
@Suite struct LoudnessMeterTests {
    @Test func aStereoSineAtMinus23DBFSReadsMinus23LUFS() throws {
        let meter = try LoudnessMeter(channels: 2, sampleRate: 48000, context: "test")
        let amplitude = Float(pow(10, -23.0 / 20))
        var samples = [Float](repeating: 0, count: 48000 * 2 * 20)
        for n in 0..<(samples.count / 2) {
            let v = amplitude * Float(sin(2 * Double.pi * 1000 * Double(n) / 48000))
            samples[2 * n] = v
            samples[2 * n + 1] = v
        }
        try meter.add(samples)
        let integrated = try #require(try meter.integrated())
        #expect(abs(integrated + 23) < 0.1, "\(integrated)")
        let peak = try #require(try meter.truePeak())
        #expect(abs(peak + 23) < 0.2, "\(peak)")
        #expect(abs(try #require(try meter.shortTerm()) + 23) < 0.1)
    }

    @Test func silenceHasNoLoudness() throws {
        let meter = try LoudnessMeter(channels: 1, sampleRate: 48000, context: "test")
        try meter.add([Float](repeating: 0, count: 48000 * 3))
        #expect(try meter.integrated() == nil)
        #expect(try meter.truePeak() == nil)
    }

    @Test func aRateTheMeterRefusesIsAnErrorThatSaysSo() {
        #expect { _ = try LoudnessMeter(channels: 0, sampleRate: 48000, context: "a test mix") } throws: { error in
            "\(error)".contains("a test mix") && "\(error)".contains("ebur128_init")
        }
    }
}
