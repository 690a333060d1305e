import DualCamTestSupport
import Testing
@testable import DualCamCore

@Suite struct GenlockTests {
    @Test func gridIsCountedFromTheSharedZero() {
        let grid = GenlockGrid(rate: .ntsc30)
        #expect(grid.sharedInstant(ofFrame: 0) == 0)
        #expect(grid.sharedInstant(ofFrame: 30_000) == 1_001_000_000_000)
        #expect(grid.frameIndex(atOrAfter: 1_001_000_000_000) == 30_000)
        #expect(grid.frameIndex(atOrAfter: 1_001_000_000_001) == 30_001)
        #expect(grid.frameIndex(after: 1_001_000_000_000) == 30_001)
        #expect(grid.frameIndex(atOrAfter: -1) == 0)
        #expect(grid.frameIndex(atOrAfter: -33_366_667) == -1)
    }

    @Test(arguments: [FrameRate.fps24, .fps25, .ntsc30, .fps30, .fps50, .fps60])
    func indexAndInstantAgree(rate: FrameRate) {
        let grid = GenlockGrid(rate: rate)
        var rng = SplitMix64(seed: UInt64(rate.numerator))
        for _ in 0..<500 {
            let t = Int64(bitPattern: rng.next() >> 8) - (1 << 54)
            let k = grid.frameIndex(atOrAfter: t)
            #expect(grid.sharedInstant(ofFrame: k) >= t && grid.sharedInstant(ofFrame: k - 1) < t)
            let n = grid.nearestFrameIndex(to: t)
            #expect(abs(grid.sharedInstant(ofFrame: n) - t) <= rate.periodNanoseconds / 2 + 1)
        }
    }
}
