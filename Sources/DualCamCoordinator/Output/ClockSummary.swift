import DualCamCore

/// An agent's clock over the whole session, for manifest.json: the spread of the error
/// bounds it reported (each a guaranteed limit on its error against the shared clock),
/// of the round trips, and the ranges its offset and rate estimates moved in.
public struct ClockSummary: Codable, Sendable {
    public var reports: Int
    public var unlockedReports: Int
    public var errorBoundP50Microseconds: Double
    public var errorBoundP99Microseconds: Double
    public var errorBoundMaxMicroseconds: Double
    public var roundTripP50Microseconds: Double
    public var roundTripMaxMicroseconds: Double
    public var offsetMinMilliseconds: Double
    public var offsetMaxMilliseconds: Double
    public var rateMinPPM: Double
    public var rateMaxPPM: Double

    init?(_ history: ClockHistory) {
        guard let offset = history.offsetNanoseconds, let rate = history.ratePPM else { return nil }
        reports = history.reports
        unlockedReports = history.unlockedReports
        errorBoundP50Microseconds = Double(history.errorBound.p50Nanoseconds) / 1000
        errorBoundP99Microseconds = Double(history.errorBound.p99Nanoseconds) / 1000
        errorBoundMaxMicroseconds = Double(history.errorBound.maxNanoseconds) / 1000
        roundTripP50Microseconds = Double(history.roundTrip.p50Nanoseconds) / 1000
        roundTripMaxMicroseconds = Double(history.roundTrip.maxNanoseconds) / 1000
        (offsetMinMilliseconds, offsetMaxMilliseconds) = (offset.lowerBound / 1e6, offset.upperBound / 1e6)
        (rateMinPPM, rateMaxPPM) = (rate.lowerBound, rate.upperBound)
    }
}
