/// Reduces audio to about 8 kHz for correlation: speech carries its timing below 4 kHz,
/// and the FFT gets six times smaller at 48 kHz.
enum AntiAliasDecimator {
    static let targetRate = 8000

    static func factor(sampleRate: Int) -> Int {
        max(1, sampleRate / targetRate)
    }

    /// Every `factor`-th output of a triangular filter 2·factor − 1 long (a box average
    /// applied twice): cheap, and with twice the attenuation in dB of a single box where
    /// the aliases would fold back. Both signals are delayed alike, so the filter's own
    /// delay cancels in an offset.
    static func decimate(_ x: [Float], factor: Int) -> [Double] {
        guard factor > 1 else { return x.map(Double.init) }
        let outputs = x.count >= 2 * factor - 1 ? (x.count - 2 * factor + 1) / factor + 1 : 0
        guard outputs > 0 else { return [] }
        let boxes = x.count - factor + 1
        var prefix = [Double](repeating: 0, count: x.count + 1)
        for i in 0..<x.count { prefix[i + 1] = prefix[i] + Double(x[i]) }
        var boxPrefix = [Double](repeating: 0, count: boxes + 1)
        let scale = 1 / Double(factor)
        for i in 0..<boxes { boxPrefix[i + 1] = boxPrefix[i] + (prefix[i + factor] - prefix[i]) * scale }
        return (0..<outputs).map { k in
            (boxPrefix[k * factor + factor] - boxPrefix[k * factor]) * scale
        }
    }
}
