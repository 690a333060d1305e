import DualCamTestSupport
import Testing
@testable import DualCamCore

@Suite struct SimulatedClockErrorTests {
    @Test func followsTheSpecFormula() {
        let e = SimulatedClockError(offsetNanoseconds: 37_000_000, skewPPM: 80, processStartNanoseconds: 5_000_000_000)
        #expect(e.local(fromTrue: 5_000_000_000) == 5_037_000_000)
        // 100 s after the start: 80 ppm is 8 ms.
        #expect(e.local(fromTrue: 105_000_000_000) == 105_045_000_000)
        #expect(e.local(fromTrue: 4_000_000_000) == 4_036_920_000)  // a second before the start
        #expect(SimulatedClockError.none.local(fromTrue: 123_456_789) == 123_456_789)
    }

    @Test(arguments: [80.0, -120.0, 0.5, 1000.0])
    func inverseIsExactToOneNanosecond(skew: Double) {
        var rng = SplitMix64(seed: UInt64(bitPattern: Int64(skew * 1000)))
        let e = SimulatedClockError(offsetNanoseconds: -37_000_123, skewPPM: skew, processStartNanoseconds: 1_234_567_890)
        for _ in 0..<2000 {
            let t = Int64(bitPattern: rng.next() >> 12)  // up to ~50 days
            let back = e.trueTime(fromLocal: e.local(fromTrue: t))
            #expect(abs(back - t) <= 1)
            let l = t
            #expect(abs(e.local(fromTrue: e.trueTime(fromLocal: l)) - l) <= 1)
        }
    }
}
