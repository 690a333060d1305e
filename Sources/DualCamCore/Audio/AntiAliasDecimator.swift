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
        let scale = 1 / Double(factor)
        var out = [Double](repeating: 0, count: outputs)
        // Running sums over buffer pointers: a debug build's checked subscripts would make
        // this the slowest part of a correlation.
        x.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                var box = 0.0  // sum of the last `factor` inputs
                var boxes = 0.0  // sum of the last `factor` box sums
                var recentBoxes = [Double](repeating: 0, count: factor)
                for i in 0..<(2 * factor - 2 + (outputs - 1) * factor + 1) {
                    box += Double(input[i])
                    if i >= factor { box -= Double(input[i - factor]) }
                    guard i >= factor - 1 else { continue }
                    let slot = i % factor
                    boxes += box - recentBoxes[slot]
                    recentBoxes[slot] = box
                    let end = i - (factor - 1)  // index of this box among all boxes
                    if end >= factor - 1, (end - (factor - 1)) % factor == 0 {
                        output[(end - (factor - 1)) / factor] = boxes * scale * scale
                    }
                }
            }
        }
        return out
    }
}
