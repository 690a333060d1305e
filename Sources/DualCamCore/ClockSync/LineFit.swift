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
}
