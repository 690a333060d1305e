/// The programme's gain towards a loudness target (−16 LUFS for podcasts, −23 for EBU
/// R128 broadcast), decided as the take goes from R128 meters' readings (`block`). The
/// gain moves at a bounded
/// pace so that it never pumps, quickly in the first seconds and slowly after, so the
/// whole file's integrated loudness lands on the target when the voices keep their level.
///
/// Pure: readings in, gain in dB out, one block (`blockSeconds`) at a time.
public struct LoudnessLeveller: Sendable {
    public let targetLUFS: Double
    public private(set) var gainDB: Double
    private var elapsed = 0.0
    /// Seconds of audible programme behind the integrated reading before it is trusted.
    static let settleSeconds = 3.0
    static let fastSlewDBPerSecond = 6.0
    static let slowSlewDBPerSecond = 1.5
    /// Quieter than this a programme is not speech to level (a silent room): hold.
    static let quietestLUFS = -60.0
    static let gainRange = -20.0...30.0
    static let makeUpLimitDB = 4.0
    public static let blockSeconds = 0.1

    public init(targetLUFS: Double, initialGainDB: Double = 0) {
        self.targetLUFS = targetLUFS
        gainDB = initialGainDB
    }

    /// Takes the readings at the end of one block (nil: silent so far): the mix's
    /// integrated and short-term loudness before the gain, and the integrated loudness
    /// of what was written (after the gain and the peak limiter). Returns the gain to
    /// apply at the end of the block.
    ///
    /// Until the mix has `settleSeconds` of audible sound, the gain follows the mix's
    /// short-term loudness (open loop: a first estimate, fast). After, it corrects what
    /// was written towards the target (closed loop): so the limiter's cuts on a peaky
    /// voice, and the quieter first seconds, are made up for, and the whole file lands on
    /// the target.
    public mutating func block(mixIntegratedLUFS: Double?, mixShortTermLUFS: Double?, writtenIntegratedLUFS: Double?,
                               audibleSeconds: Double) -> Double {
        elapsed += Self.blockSeconds
        let wanted: Double
        if audibleSeconds >= Self.settleSeconds, let written = writtenIntegratedLUFS, written > Self.quietestLUFS {
            wanted = gainDB + (targetLUFS - written)
            // Making up for the limiter has a bound: a sound whose peaks stand too far above
            // its loudness cannot reach the target under the ceiling, and more gain would
            // only raise its room noise. The manifest then says how far it fell short.
            if let mix = mixIntegratedLUFS, mix > Self.quietestLUFS {
                return slewed(towards: min(wanted, targetLUFS - mix + Self.makeUpLimitDB))
            }
        } else if let reading = mixShortTermLUFS ?? mixIntegratedLUFS, reading > Self.quietestLUFS {
            wanted = targetLUFS - reading
        } else {
            return gainDB
        }
        return slewed(towards: wanted)
    }

    private mutating func slewed(towards wanted: Double) -> Double {
        let bounded = min(max(wanted, Self.gainRange.lowerBound), Self.gainRange.upperBound)
        let slew = (elapsed < 10 ? Self.fastSlewDBPerSecond : Self.slowSlewDBPerSecond) * Self.blockSeconds
        gainDB += min(max(bounded - gainDB, -slew), slew)
        return gainDB
    }
}
