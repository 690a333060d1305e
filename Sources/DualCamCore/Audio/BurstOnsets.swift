/// Finds the onsets of the 1 kHz tone bursts (`ToneBurst`) in decoded audio, for measuring
/// audio/video sync from output files alone.
///
/// Detection works on the RMS of 1 ms blocks (one period of the tone, so a steady burst
/// reads steady): a burst is a run of blocks above a threshold halfway in dB between the
/// noise floor and the loudest block, the threshold never below −30 dBFS so that the
/// low-level pre-echo a codec such as AAC smears ahead of a transient does not start the
/// run early; runs less than 200 ms of quiet apart are one burst. The onset is then timed
/// to a few microseconds from the samples: the first crossing of 25 % of the burst's peak,
/// interpolated between samples, minus the time a sine starting at phase 0 takes to reach
/// 25 % (asin(0.25)/(2π·1 kHz) ≈ 40.2 µs). That crossing is far above any pre-echo and
/// far below the peak, where the sine is steep and noise moves it least. A burst already
/// sounding in the first millisecond is skipped: its onset may precede the recording.
public enum BurstOnsets {
    static let quietNanoseconds: Int64 = 200_000_000
    /// −30 dBFS as an RMS level.
    static let lowestThreshold = 0.031_622_776_601_683_79
    static let onsetFraction = 0.25
    /// asin(0.25), written out because the core has no maths library.
    static let asinOfOnsetFraction = 0.252_680_255_142_078_65
    static let crossingDelayNanoseconds = asinOfOnsetFraction / (2 * Double.pi) * 1e9 / ToneBurst.frequencyHz

    public static func find(samples: [Float], sampleRate: Int) -> [Int64] {
        guard sampleRate > 0 else { return [] }
        let block = max(1, sampleRate / 1000)
        let rms = blockRMS(samples, block: block)
        guard !rms.isEmpty else { return [] }
        let sorted = rms.sorted()
        // The bursts fill 2 % of the time, so the 10th percentile is the floor between them.
        let floor = max(sorted[sorted.count / 10], 1e-6)
        let loudest = sorted[sorted.count - 1]
        guard loudest > 4 * floor else { return [] }
        let threshold = min(max((floor * loudest).squareRoot(), lowestThreshold), loudest / 2)
        let quietBlocks = max(1, Int(Double(quietNanoseconds) * Double(sampleRate) / 1e9) / block)

        var onsets: [Int64] = []
        var b = 0
        while b < rms.count {
            guard rms[b] > threshold else {
                b += 1
                continue
            }
            let first = b
            var last = b, quiet = 0
            b += 1
            while b < rms.count, quiet < quietBlocks {
                if rms[b] > threshold {
                    last = b
                    quiet = 0
                } else {
                    quiet += 1
                }
                b += 1
            }
            // A run from the very first block may be a burst cut by the recording's start,
            // whose real onset is not in it.
            if first > 0, let onset = onset(samples, run: (first * block)..<min(samples.count, (last + 1) * block),
                                 searchFrom: max(0, (first - 2) * block), sampleRate: sampleRate) {
                onsets.append(onset)
            }
        }
        return onsets
    }

    private static func blockRMS(_ x: [Float], block: Int) -> [Double] {
        (0..<(x.count / block)).map { k in
            var sum = 0.0
            for i in (k * block)..<(k * block + block) { sum += Double(x[i]) * Double(x[i]) }
            return (sum / Double(block)).squareRoot()
        }
    }

    /// Nanoseconds from sample 0 to the burst's first sample.
    private static func onset(_ x: [Float], run: Range<Int>, searchFrom start: Int, sampleRate: Int) -> Int64? {
        var peak: Float = 0
        for i in run { peak = max(peak, x[i].magnitude) }
        let level = Double(peak) * onsetFraction
        var i = start
        while i < run.upperBound, Double(x[i].magnitude) < level { i += 1 }
        guard i > 0, i < run.upperBound else { return nil }
        let below = Double(x[i - 1].magnitude), above = Double(x[i].magnitude)
        let fraction = above > below ? min(max((level - below) / (above - below), 0), 1) : 1
        let crossing = (Double(i - 1) + fraction) * 1e9 / Double(sampleRate)
        return Int64((crossing - crossingDelayNanoseconds).rounded())
    }
}
