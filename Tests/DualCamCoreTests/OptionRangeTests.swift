import DualCamCore
import Testing

/// The sentence a user reads when a number is refused: the option, what was given, and
/// what to give instead; NaN and infinities refused like any value outside the range.
struct OptionRangeTests {
    @Test func aValueOutsideTheRangeIsRefusedWithTheRange() {
        let reserve = OptionRange("--disk-reserve-mb", 0.0...1_000_000, "MB")
        #expect(reserve.problem(64) == nil && reserve.problem(0) == nil && reserve.problem(1_000_000) == nil)
        #expect(reserve.problem(1e20) == "--disk-reserve-mb 1e+20 is out of range: give 0 to 1000000 MB")
        #expect(reserve.problem(.infinity) == "--disk-reserve-mb inf is out of range: give 0 to 1000000 MB")
        #expect(reserve.problem(.nan) == "--disk-reserve-mb nan is not a number: give 0 to 1000000 MB")
        #expect(reserve.problem(-1) != nil)
    }

    @Test func anExcludedLowerBoundIsSaidSo() {
        let duration = OptionRange("--duration", 0.0...86_400, "seconds", excludingLowerBound: true)
        #expect(duration.problem(0.5) == nil)
        #expect(duration.problem(0) == "--duration 0 is out of range: give more than 0 and at most 86400 seconds")
    }

    @Test func integersToo() {
        let port = OptionRange("--port", 1...65_535)
        #expect(port.problem(70_000) == "--port 70000 is out of range: give 1 to 65535")
        #expect(port.problem(Int.max) != nil && port.problem(443) == nil)
    }

    /// A rate with terms that would overflow `1_000_000_000 * denominator` is no rate.
    @Test func frameRatesThatWouldOverflowAreNotParsed() {
        #expect(FrameRate(parsing: "30000/1001") == .ntsc30)
        #expect(FrameRate(parsing: "1/99999999999999") == nil)
        #expect(FrameRate(parsing: "9223372036854775807") == nil)
    }
}
