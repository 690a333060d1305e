/// Error counts in fixed bins, so a session of any length summarises in constant memory:
/// 1 µs bins up to 1 ms (where a synchronised rig lives), 50 µs bins up to 50 ms, and
/// one bin beyond.
struct ErrorHistogram: Sendable {
    private static let fineWidth: Int64 = 1_000
    private static let fineBins = 1_000
    private static let coarseWidth: Int64 = 50_000
    private static let coarseBins = 980
    private var bins = [Int](repeating: 0, count: fineBins + coarseBins + 1)
    private(set) var count = 0
    private var sum = 0.0
    private(set) var maximum: Int64 = 0

    mutating func add(_ error: Int64) {
        let e = error.magnitude > UInt64(Int64.max) ? Int64.max : Int64(error.magnitude)
        count += 1
        sum += Double(e)
        maximum = max(maximum, e)
        bins[ErrorHistogram.bin(of: e)] += 1
    }

    private static func bin(of e: Int64) -> Int {
        let fineEnd = fineWidth * Int64(fineBins)
        if e < fineEnd { return Int(e / fineWidth) }
        return min(fineBins + Int((e - fineEnd) / coarseWidth), fineBins + coarseBins)
    }

    private static func upperEdge(of bin: Int) -> Int64 {
        if bin < fineBins { return Int64(bin + 1) * fineWidth }
        return fineWidth * Int64(fineBins) + Int64(bin - fineBins + 1) * coarseWidth
    }

    /// The smallest bin edge at or below which a fraction `q` of the errors lie.
    func quantile(_ q: Double) -> Int64 {
        guard count > 0 else { return 0 }
        let wanted = max(1, Int((q * Double(count)).rounded(.up)))
        var seen = 0
        for (i, n) in bins.enumerated() {
            seen += n
            if seen >= wanted { return min(ErrorHistogram.upperEdge(of: i), maximum) }
        }
        return maximum
    }

    var distribution: ErrorDistribution {
        ErrorDistribution(count: count, meanNanoseconds: count == 0 ? 0 : sum / Double(count),
                          p50Nanoseconds: quantile(0.5), p99Nanoseconds: quantile(0.99), maxNanoseconds: maximum)
    }
}
