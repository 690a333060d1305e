import DualCamCore
import DualCamTestSupport
import Testing

struct ArrivalStamperTests {
    let rate = FrameRate.fps30
    var period: Int64 { rate.periodNanoseconds }

    @Test func aBurstIsSpreadAtTheNominalRate() {
        var stamper = ArrivalStamper(rate: rate)
        let stamps = (0..<60).map { _ in stamper.stamp(arrival: 1_000_000_000) }
        for (k, s) in stamps.enumerated() {
            #expect(s.instant == 1_000_000_000 + Int64(k) * period)
            #expect(s.lostBefore == 0)
        }
    }

    @Test func jitterIsSmoothedAway() {
        var stamper = ArrivalStamper(rate: rate)
        var generator = SplitMix64(seed: 7)
        var worst: Int64 = 0
        for k in 0..<900 {
            let truth = Int64(k) * period
            let jitter = Int64(generator.next() % 8_000_000)   // 0-8 ms of pipe delay
            let s = stamper.stamp(arrival: truth + jitter)
            if k > 100 { worst = max(worst, abs(s.instant - truth - 4_000_000)) }
        }
        // The stamps settle around the mean delay with far less spread than the 8 ms of jitter.
        #expect(worst < 1_500_000)
    }

    @Test func lostFramesMakeTheStampJump() {
        var stamper = ArrivalStamper(rate: rate)
        for k in 0..<10 { _ = stamper.stamp(arrival: Int64(k) * period) }
        let after = stamper.stamp(arrival: 13 * period)
        #expect(after.instant == 13 * period)
        #expect(after.lostBefore == 3)
    }

    @Test func aCameraSlightlyFastIsFollowed() {
        // 200 ppm fast: the frames' spacing is 0.9998 of nominal.
        var stamper = ArrivalStamper(rate: rate)
        var last = (instant: Int64(0), lostBefore: 0)
        for k in 0..<9000 { last = stamper.stamp(arrival: Int64(Double(k) * Double(period) * 0.9998)) }
        let truth = Int64(8999 * Double(period) * 0.9998)
        #expect(abs(last.instant - truth) < 2_000_000)
        #expect(last.lostBefore == 0)
    }
}
