import Testing
@testable import DualCamCore

@Suite struct AudioToneBurstTests {
    let second: Int64 = 1_000_000_000

    @Test func constantsFollowTheSpec() {
        #expect(ToneBurst.frequencyHz == 1000)
        #expect(ToneBurst.durationNanoseconds == 20_000_000)
        // −12 dBFS is 10^(−0.6), so a^5 = 10^−3.
        let a = Double(ToneBurst.amplitude)
        #expect((a * a * a * a * a - 1e-3).magnitude < 1e-9)
    }

    @Test func silentOutsideBursts() {
        for t: Int64 in [-1, 20_000_000, 500_000_000, 999_999_999, 5 * second - 1, 3600 * second + 20_000_000] {
            #expect(ToneBurst.sample(atTrueNanoseconds: t) == 0, "\(t)")
        }
    }

    @Test func sineInsideBurstsAtAnyHourAndBeforeZero() {
        let a = ToneBurst.amplitude
        for k: Int64 in [0, 1, 7, 3600, 86_400 * 3, -1, -5] {
            let base = k * second
            #expect(ToneBurst.sample(atTrueNanoseconds: base) == 0)
            #expect(ToneBurst.sample(atTrueNanoseconds: base + 250_000) == a)  // quarter period
            #expect(ToneBurst.sample(atTrueNanoseconds: base + 19_750_000) == -a)  // last trough
            let eighth = ToneBurst.sample(atTrueNanoseconds: base + 3_000_000 + 125_000)
            #expect((Double(eighth) - Double(a) * 0.5.squareRoot()).magnitude < 1e-7)
        }
    }
}
