/// Where a short probe sits in a longer target, by cross-correlation with the phase
/// transform (GCC-PHAT): every frequency weighs the same, so a peak is as sharp as the
/// sound's bandwidth allows whatever its spectrum, and a room's reverb or a microphone's
/// colour (a lavalier against a camera's mic) moves no peak. The target's spectrum is
/// computed once and every probe is correlated against it.
struct PhaseCorrelator: Sendable {
    let targetCount: Int
    private let fft: RadixTwoFFT
    private let targetRe: [Double]
    private let targetIm: [Double]

    /// `longestProbe`: the longest probe `best` will be given; the transform is sized so
    /// that no lag of it wraps around. A probe only ever searched at lags from 0 (inside
    /// the target) needs a transform half the size.
    init(target: [Float], longestProbe: Int, negativeLags: Bool = true) {
        targetCount = target.count
        fft = RadixTwoFFT(size: RadixTwoFFT.size(atLeast: target.count + (negativeLags ? longestProbe : 0) + 1))
        var re = [Double](repeating: 0, count: fft.size), im = [Double](repeating: 0, count: fft.size)
        let mean = Self.mean(target[...])
        for i in target.indices { re[i] = Double(target[i]) - mean }
        fft.transform(real: &re, imaginary: &im, inverse: false)
        targetRe = re
        targetIm = im
    }

    /// The lag `k` (probe[n] best matches target[n + k]) within `lags`, refined to a
    /// fraction of a sample by a parabola through the peak and its neighbours, and how far
    /// the peak stands above the correlation at the other lags searched, in standard
    /// deviations. Nil for a silent probe or an empty lag range.
    func best(probe: ArraySlice<Float>, lags: ClosedRange<Int>) -> CorrelationPeak? {
        let n = fft.size
        guard probe.count > 1, probe.count < n else { return nil }
        let low = max(lags.lowerBound, probe.count + targetCount < n ? -(probe.count - 1) : 0)
        let high = min(lags.upperBound, targetCount - 1)
        guard high - low >= 2 else { return nil }
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        let mean = Self.mean(probe)
        var energy = 0.0
        for (i, v) in probe.enumerated() {
            re[i] = Double(v) - mean
            energy += re[i] * re[i]
        }
        guard energy > 1e-12 * Double(probe.count) else { return nil }
        fft.transform(real: &re, imaginary: &im, inverse: false)
        // conj(P)·T, each bin scaled to unit magnitude.
        for k in 0..<n {
            let pr = re[k], pi = -im[k]
            let xr = pr * targetRe[k] - pi * targetIm[k]
            let xi = pr * targetIm[k] + pi * targetRe[k]
            let magnitude = (xr * xr + xi * xi).squareRoot()
            if magnitude > 1e-20 {
                re[k] = xr / magnitude
                im[k] = xi / magnitude
            } else {
                re[k] = 0
                im[k] = 0
            }
        }
        fft.transform(real: &re, imaginary: &im, inverse: true)
        func at(_ lag: Int) -> Double { re[lag >= 0 ? lag : n + lag] }
        var bestLag = low
        var sum = 0.0, sumSquares = 0.0
        for lag in low...high {
            let v = at(lag)
            sum += v
            sumSquares += v * v
            if v > at(bestLag) { bestLag = lag }
        }
        let count = Double(high - low + 1)
        let mu = sum / count
        let sigma = max(sumSquares / count - mu * mu, 0).squareRoot()
        guard sigma > 0 else { return nil }
        var shift = 0.0
        if bestLag > low, bestLag < high {
            let left = at(bestLag - 1), peak = at(bestLag), right = at(bestLag + 1)
            let curvature = left - 2 * peak + right
            if curvature < 0 { shift = min(max(0.5 * (left - right) / curvature, -0.5), 0.5) }
        }
        return CorrelationPeak(lag: Double(bestLag) + shift, z: (at(bestLag) - mu) / sigma)
    }

    private static func mean(_ x: ArraySlice<Float>) -> Double {
        guard !x.isEmpty else { return 0 }
        var sum = 0.0
        for v in x { sum += Double(v) }
        return sum / Double(x.count)
    }
}

/// A correlation's best lag (samples, fractional) and its height over the rest (z).
struct CorrelationPeak: Sendable, Equatable {
    var lag: Double
    var z: Double
}
