/// A straight-line model of `shared − local` fitted to a window of observations, with
/// local time measured from `reference` and offsets from `base`.
struct LineFit: Sendable {
    var offset: Double
    var rate: Double
    /// Bound on the offset error at the reference.
    var bound: Double
    /// Bound on the rate error; the offset bound grows by this per nanosecond away.
    var rateUncertainty: Double
    var samplesUsed: Int
    /// The minimum one-way delay the line implies: readings should come no closer to it.
    var margin: Double
    /// Working precision of the offset at the reference and of the rate (not bounds).
    var spread: Double
    var rateSpread: Double
}
