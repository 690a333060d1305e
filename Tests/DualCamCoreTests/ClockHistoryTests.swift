import DualCamCore
import Testing

struct ClockHistoryTests {
    @Test func summarisesEveryReportOfASession() {
        var history = ClockHistory()
        #expect(history.reports == 0 && history.offsetNanoseconds == nil)
        // An hour of reports every 2 s: bounds mostly 40-60 µs, one spike after a stall.
        for k in 0..<1800 {
            let spike = k == 900
            history.add(offsetNanoseconds: 37e6 + Double(k) * 100, ratePPM: 80 + Double(k % 3) * 0.1,
                        errorBoundNanoseconds: spike ? 2_400_000 : 40_000 + Int64(k % 21) * 1_000,
                        roundTripNanoseconds: spike ? 5_000_000 : 300_000, locked: !spike)
        }
        #expect(history.reports == 1800)
        #expect(history.unlockedReports == 1)
        #expect(history.errorBound.maxNanoseconds == 2_400_000)
        #expect(history.errorBound.p50Nanoseconds >= 49_000 && history.errorBound.p50Nanoseconds <= 51_000)
        #expect(history.errorBound.p99Nanoseconds <= 61_000)
        #expect(history.roundTrip.p50Nanoseconds == 300_000 || history.roundTrip.p50Nanoseconds == 301_000)
        #expect(history.offsetNanoseconds == 37e6...(37e6 + 1799 * 100))
        let rate = history.ratePPM!
        #expect(abs(rate.lowerBound - 80) < 1e-9 && abs(rate.upperBound - 80.2) < 1e-9)
    }
}
