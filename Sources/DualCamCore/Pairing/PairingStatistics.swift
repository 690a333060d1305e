/// Per-session figures of the pairing, for the manifest. Errors are kept in a histogram
/// of 1 µs buckets (bounded memory however long the session runs).
public struct PairingStatistics: Sendable, Equatable {
    public internal(set) var ticks = 0
    /// Ticks at which every stream had a fresh frame.
    public internal(set) var pairs = 0
    /// Stream-ticks that repeated a stream's last frame.
    public internal(set) var repeats = 0
    /// Stream-ticks shown as "no signal".
    public internal(set) var noSignal = 0
    /// Frames that arrived but were never shown (two in one tick, or too late).
    public internal(set) var droppedFrames = 0
    public internal(set) var freshFramesPerStream: [Int]
    var histogram: [Int]
    var errorSum: Double = 0
    var errorCount = 0
    public internal(set) var maxAbsoluteErrorNanoseconds: Int64 = 0

    init(streamCount: Int, maxErrorNanoseconds: Int64) {
        freshFramesPerStream = Array(repeating: 0, count: streamCount)
        histogram = Array(repeating: 0, count: Int(maxErrorNanoseconds / 1000) + 2)
    }

    mutating func recordError(_ error: Int64) {
        let magnitude = abs(error)
        histogram[min(Int(magnitude / 1000), histogram.count - 1)] += 1
        errorSum += Double(magnitude)
        errorCount += 1
        maxAbsoluteErrorNanoseconds = max(maxAbsoluteErrorNanoseconds, magnitude)
    }

    public var meanAbsoluteErrorNanoseconds: Double { errorCount == 0 ? 0 : errorSum / Double(errorCount) }

    /// Upper edge of the bucket holding the given quantile of |error| (1 µs resolution).
    public func absoluteErrorQuantileNanoseconds(_ q: Double) -> Int64 {
        guard errorCount > 0 else { return 0 }
        let target = Int((Double(errorCount) * q).rounded(.up))
        var seen = 0
        for (bucket, count) in histogram.enumerated() {
            seen += count
            if seen >= max(target, 1) { return min(Int64(bucket + 1) * 1000, maxAbsoluteErrorNanoseconds) }
        }
        return maxAbsoluteErrorNanoseconds
    }

    public var p50AbsoluteErrorNanoseconds: Int64 { absoluteErrorQuantileNanoseconds(0.5) }
    public var p99AbsoluteErrorNanoseconds: Int64 { absoluteErrorQuantileNanoseconds(0.99) }
}
