/// Offset between two recordings of the same sounds (two microphones in one room), by
/// cross-correlation: the sync report's second measure, independent of any clock.
public enum AudioCorrelation {
    /// Below this mean power (−120 dBFS) a signal is treated as silence.
    static let silentPower = 1e-12

    public static func offset(reference: [Float], other: [Float], sampleRate: Int,
                              maxLagNanoseconds: Int64) -> AudioOffset? {
        guard sampleRate > 0, maxLagNanoseconds >= 0 else { return nil }
        let factor = AntiAliasDecimator.factor(sampleRate: sampleRate)
        let rate = Double(sampleRate) / Double(factor)
        var r = AntiAliasDecimator.decimate(reference, factor: factor)
        var o = AntiAliasDecimator.decimate(other, factor: factor)
        guard r.count > 2, o.count > 2 else { return nil }
        let energyR = removeMean(&r), energyO = removeMean(&o)
        guard energyR > silentPower * Double(r.count), energyO > silentPower * Double(o.count) else { return nil }

        let longest = max(r.count, o.count)
        let maxLag = min(Int((Double(maxLagNanoseconds) * rate / 1e9).rounded(.up)), longest - 2)
        let c = crossCorrelation(r, o, maxLag: maxLag + 1)
        func at(_ lag: Int) -> Double { c[lag >= 0 ? lag : c.count + lag] }

        var best = 0
        for lag in -maxLag...maxLag where at(lag).magnitude > at(best).magnitude { best = lag }
        // The sign is allowed either way: one microphone may be wired with inverted polarity.
        let sign: Double = at(best) < 0 ? -1 : 1
        let left = sign * at(best - 1), peak = sign * at(best), right = sign * at(best + 1)
        let curvature = left - 2 * peak + right
        var shift = 0.0
        if curvature < 0 { shift = min(max(0.5 * (left - right) / curvature, -0.5), 0.5) }
        let refinedPeak = peak - 0.25 * (left - right) * shift
        let confidence = min(max(refinedPeak / (energyR * energyO).squareRoot(), 0), 1)
        let nanoseconds = ((Double(best) + shift) * 1e9 / rate).rounded()
        return AudioOffset(nanoseconds: Int64(nanoseconds), confidence: confidence)
    }

    public static func driftReport(reference: [Float], other: [Float], sampleRate: Int, windowSeconds: Double,
                                   maxLagNanoseconds: Int64) -> AudioSyncReport? {
        guard sampleRate > 0, windowSeconds > 0 else { return nil }
        let common = min(reference.count, other.count)
        guard common > 0 else { return nil }
        let window = min(common, max(1, Int((windowSeconds * Double(sampleRate)).rounded())))
        let late = common - window
        guard let start = offset(reference: Array(reference[0..<window]), other: Array(other[0..<window]),
                                 sampleRate: sampleRate, maxLagNanoseconds: maxLagNanoseconds),
              let end = offset(reference: Array(reference[late..<common]), other: Array(other[late..<common]),
                               sampleRate: sampleRate, maxLagNanoseconds: maxLagNanoseconds)
        else { return nil }
        return AudioSyncReport(start: start, end: end, driftNanoseconds: end.nanoseconds - start.nanoseconds,
                               spanSeconds: Double(late) / Double(sampleRate))
    }

    /// Subtracts the mean (a DC offset would correlate at every lag) and returns the energy.
    private static func removeMean(_ x: inout [Double]) -> Double {
        let mean = x.reduce(0, +) / Double(x.count)
        var energy = 0.0
        for i in x.indices {
            x[i] -= mean
            energy += x[i] * x[i]
        }
        return energy
    }

    /// `c[k] = Σ r[n]·o[n+k]` for |k| ≤ maxLag, negative lags wrapped to the end. The
    /// padding keeps those lags free of circular wrap-around. Both real signals share one
    /// complex transform (r as real part, o as imaginary) and are separated by symmetry.
    private static func crossCorrelation(_ r: [Double], _ o: [Double], maxLag: Int) -> [Double] {
        let fft = RadixTwoFFT(size: RadixTwoFFT.size(atLeast: max(r.count, o.count) + maxLag + 1))
        let n = fft.size
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        for i in r.indices { re[i] = r[i] }
        for i in o.indices { im[i] = o[i] }
        fft.transform(real: &re, imaginary: &im, inverse: false)
        var productRe = [Double](repeating: 0, count: n), productIm = [Double](repeating: 0, count: n)
        for k in 0..<n {
            let m = (n - k) & (n - 1)
            // R = (Z[k] + conj Z[−k]) / 2, O = (Z[k] − conj Z[−k]) / 2i; the product is conj(R)·O.
            let rr = (re[k] + re[m]) / 2, ri = (im[k] - im[m]) / 2
            let or = (im[k] + im[m]) / 2, oi = (re[m] - re[k]) / 2
            productRe[k] = rr * or + ri * oi
            productIm[k] = rr * oi - ri * or
        }
        fft.transform(real: &productRe, imaginary: &productIm, inverse: true)
        let scale = 1 / Double(n)
        return productRe.map { $0 * scale }
    }
}
