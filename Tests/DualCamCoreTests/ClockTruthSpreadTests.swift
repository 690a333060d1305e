import DualCamCore
import Testing

/// How far apart all the cameras of a rig were, read from their frame codes: the largest
/// true error minus the smallest at each instant, which pair errors against one reference
/// understate when the others are off it in opposite ways.
struct ClockTruthSpreadTests {
    static let period: Int64 = 33_333_333

    /// Frames stamped on the shared grid whose codes show an instant `offset` later.
    static func camera(offset: Int64, frames: Int, skipping: Set<Int> = []) -> [ClockTruth.Frame] {
        (0..<frames).filter { !skipping.contains($0) }.map { k in
            let shared = 10_000_000_000 + Int64(k) * period
            return ClockTruth.Frame(sharedNanoseconds: shared, code: DCTC.code(trueNanoseconds: shared + offset))
        }
    }

    @Test func theSpreadIsTheWidestPairNotThePairsAgainstOne() throws {
        let cameras = [Self.camera(offset: 0, frames: 60), Self.camera(offset: 300_000, frames: 60),
                       Self.camera(offset: -200_000, frames: 60, skipping: [10, 11])]
        let spread = try #require(ClockTruth.Figures(ClockTruth.spread(cameras, periodNanoseconds: Self.period)))
        // Every instant of the first camera has at least two cameras, so all 60 count.
        #expect(spread.frames == 60)
        // 500 µs apart (one 100 µs code step either way), where each camera against the
        // first shows at most 300.
        #expect((400...600).contains(spread.maxMicroseconds), "\(spread)")
        #expect(spread.p50Microseconds >= 400, "\(spread)")
        let against = ClockTruth.pairErrors(cameras[1], against: cameras[0], periodNanoseconds: Self.period)
        #expect((against.map(\.magnitude).max() ?? 0) <= 400_000)
        // On the two instants the third camera lacks, the spread is the other two's.
        let perInstant = ClockTruth.spread(cameras, periodNanoseconds: Self.period)
        #expect(perInstant[10] <= 400_000 && perInstant[10] >= 200_000, "\(perInstant[10])")
    }

    @Test func oneCameraOrNoneHasNoSpread() {
        #expect(ClockTruth.spread([Self.camera(offset: 0, frames: 10)], periodNanoseconds: Self.period).isEmpty)
        #expect(ClockTruth.spread([], periodNanoseconds: Self.period).isEmpty)
    }
}
