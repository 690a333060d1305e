import DualCamCore
import Foundation

/// The synthetic source's own work per frame (picture, label, grid) timed in this process:
/// the agent's CPU in run C is mostly x264's, whose noise on a shared machine is larger
/// than the whole pattern, so a label's cost would not show there.
func reportPatternCost(width: Int, height: Int) {
    var image = YUV420Image(width: width, height: height)
    let cases: [(String, PatternIdentity?)] = [
        ("plain, no identity (the pattern before labels)", nil),
        ("labelled and tinted, demo-guest / guest", PatternIdentity(name: "demo-guest", role: "guest")),
    ]
    var sink = 0
    for (title, identity) in cases {
        let pattern = SyntheticPattern(width: width, height: height, identity: identity)
        var k: Int64 = 0
        let timing = medianMilliseconds(runs: 300) {
            pattern.render(frameIndex: k, code: DCTC.code(trueNanoseconds: FrameRate.fps30.instant(ofFrame: k)), into: &image)
            sink &+= Int(image.y[image.y.count / 3])
            k += 1
        }
        // In µs: the whole pattern is well under the 0.01 ms the other figures resolve.
        print(String(format: "  synthetic pattern %dx%d, %@: %.1f µs/frame (best %.1f)", width, height, title as NSString,
                     timing.median * 1000, timing.best * 1000))
    }
    print("  (pattern checksum \(sink & 0xFFFF))")
}
