/// The agent's current model of the shared clock: a straight line through
/// `(referenceLocal, referenceLocal + offset)` with slope `1 + rate`.
public struct ClockEstimate: Sendable, Hashable {
    /// `shared − local` at `referenceLocalNanoseconds`.
    public var offsetNanoseconds: Double
    /// `d(shared)/d(local) − 1`; +80e-6 means the shared clock gains 80 µs per local second.
    public var rate: Double
    /// The local instant the offset and the bound refer to (the newest sample used).
    public var referenceLocalNanoseconds: Int64
    /// Bound on `|shared(fromLocal:) − true shared|` at the reference instant.
    public var errorBoundNanoseconds: Int64
    /// How fast the bound widens away from the reference (ns of error per ns of local time).
    public var rateUncertainty: Double
    public var state: ClockSyncState
    public var samplesUsed: Int

    public init(offsetNanoseconds: Double, rate: Double, referenceLocalNanoseconds: Int64,
                errorBoundNanoseconds: Int64, rateUncertainty: Double = 0,
                state: ClockSyncState, samplesUsed: Int) {
        self.offsetNanoseconds = offsetNanoseconds
        self.rate = rate
        self.referenceLocalNanoseconds = referenceLocalNanoseconds
        self.errorBoundNanoseconds = errorBoundNanoseconds
        self.rateUncertainty = rateUncertainty
        self.state = state
        self.samplesUsed = samplesUsed
    }

    /// Maps a local clock reading (e.g. a V4L2 buffer timestamp) to the shared clock.
    public func shared(fromLocal instant: LocalInstant) -> SharedInstant {
        let local = instant.nanoseconds
        let elapsed = Double(local &- referenceLocalNanoseconds)
        let correction = offsetNanoseconds + rate * elapsed
        return SharedInstant(nanoseconds: local &+ Int64(correction.rounded()))
    }

    /// Maps a shared instant (e.g. a scheduled frame) to the local clock to wait for.
    public func local(fromShared instant: SharedInstant) -> LocalInstant {
        // shared = ref + e + offset + rate*e, with e = local − ref.
        let elapsed = (Double(instant.nanoseconds &- referenceLocalNanoseconds) - offsetNanoseconds) / (1 + rate)
        return LocalInstant(nanoseconds: referenceLocalNanoseconds &+ Int64(elapsed.rounded()))
    }

    /// The error bound at another local instant: it widens with distance from the reference
    /// because the rate is only known to within `rateUncertainty`.
    public func errorBound(atLocal local: Int64) -> Int64 {
        let distance = Double(local &- referenceLocalNanoseconds).magnitude
        return errorBoundNanoseconds &+ Int64((distance * rateUncertainty).rounded(.up))
    }
}
