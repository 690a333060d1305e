/// A gentle compressor for the programme's voices, before the true-peak limiter: speech
/// carries its syllable peaks 15–20 dB over its loudness, and a file at −16 LUFS may keep
/// only 14.5 dB under a −1.5 dBTP ceiling. Left to the limiter alone, that difference is
/// a limiter working on every pitch pulse (and a file that stays a dB or two short of its
/// target however much gain goes in). A 3:1 compressor on the loudest syllables, with a
/// voice's attack (5 ms) and release (150 ms), takes those dB off smoothly instead.
///
/// Level detection on the mean square over 1 ms, gain in dB smoothed per millisecond and
/// ramped across each one: no latency, no click.
public struct ProgrammeCompressor: Sendable {
    public let channels: Int
    public let thresholdDBFS: Double
    public let ratio: Double
    private let subFrames: Int
    private let attack: Double
    private let release: Double
    private var levelDB = -120.0
    private var gain: Float = 1
    private var pending: [Float] = []

    public init(channels: Int, sampleRate: Int, thresholdDBFS: Double, ratio: Double = 3,
                attackSeconds: Double = 0.005, releaseSeconds: Double = 0.15) {
        self.channels = channels
        self.thresholdDBFS = thresholdDBFS
        self.ratio = ratio
        subFrames = max(1, sampleRate / 1000)
        let perSecond = Double(sampleRate) / Double(max(1, sampleRate / 1000))
        attack = 1 - Exponential.exp(-1 / (attackSeconds * perSecond))
        release = 1 - Exponential.exp(-1 / (releaseSeconds * perSecond))
    }

    /// Compresses interleaved frames; returns as many (whole milliseconds at once; the
    /// rest waits for the next call or `flush`).
    public mutating func process(_ input: [Float]) -> [Float] {
        pending += input
        let step = subFrames * channels
        let whole = pending.count / step * step
        guard whole > 0 else { return [] }
        var out = Array(pending[..<whole])
        pending.removeFirst(whole)
        var at = 0
        while at < whole {
            compress(&out, from: at, count: step)
            at += step
        }
        return out
    }

    /// What is left, at the end.
    public mutating func flush() -> [Float] {
        var out = pending
        pending.removeAll()
        if !out.isEmpty { compress(&out, from: 0, count: out.count) }
        return out
    }

    private mutating func compress(_ x: inout [Float], from start: Int, count: Int) {
        var sum = 0.0
        for i in start..<(start + count) { sum += Double(x[i]) * Double(x[i]) }
        let mean = sum / Double(count)
        let db = mean > 1e-12 ? 10 * Exponential.log(mean) / Exponential.log(10) : -120
        levelDB += (db > levelDB ? attack : release) * (db - levelDB)
        let reduction = levelDB > thresholdDBFS ? (thresholdDBFS - levelDB) * (1 - 1 / ratio) : 0
        let target = Float(Exponential.exp(reduction * Exponential.log(10) / 20))
        let frames = count / channels
        for f in 0..<frames {
            let g = gain + (target - gain) * Float(f + 1) / Float(frames)
            for c in 0..<channels { x[start + f * channels + c] *= g }
        }
        gain = target
    }
}
