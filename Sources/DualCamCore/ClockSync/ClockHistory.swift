/// One agent's clock reports over a whole session, in constant memory: the manifest's
/// figures for how well the clocks held, not just where they ended.
public struct ClockHistory: Sendable {
    private var bounds = ErrorHistogram()
    private var roundTrips = ErrorHistogram()
    /// Reports in which the agent's estimate was not locked (it was converging again).
    public private(set) var unlockedReports = 0
    public private(set) var offsetNanoseconds: ClosedRange<Double>?
    public private(set) var ratePPM: ClosedRange<Double>?

    public init() {}

    public var reports: Int { bounds.count }
    /// The error bounds the agent reported, each a guaranteed limit on its clock error.
    public var errorBound: ErrorDistribution { bounds.distribution }
    public var roundTrip: ErrorDistribution { roundTrips.distribution }

    public mutating func add(offsetNanoseconds offset: Double, ratePPM rate: Double, errorBoundNanoseconds bound: Int64,
                             roundTripNanoseconds roundTrip: Int64, locked: Bool) {
        bounds.add(bound)
        roundTrips.add(roundTrip)
        if !locked { unlockedReports += 1 }
        offsetNanoseconds = Self.widen(offsetNanoseconds, offset)
        ratePPM = Self.widen(ratePPM, rate)
    }

    private static func widen(_ range: ClosedRange<Double>?, _ value: Double) -> ClosedRange<Double> {
        guard let range else { return value...value }
        return min(range.lowerBound, value)...max(range.upperBound, value)
    }
}
