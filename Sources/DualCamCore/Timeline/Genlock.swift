/// The genlocked frame grid of `TIMECODE.md`: frame `k` is due at the shared-clock instant
/// `k * P`, counted from the shared clock's zero, so every genlocked agent lands on the same
/// instants without talking to the others once its clock is in sync.
public struct GenlockGrid: Sendable, Hashable {
    public let rate: FrameRate

    public init(rate: FrameRate) {
        self.rate = rate
    }

    /// The first frame whose instant is at or after `shared`.
    public func frameIndex(atOrAfter shared: Int64) -> Int64 {
        rate.firstFrame(atOrAfter: shared)
    }

    /// The first frame strictly after `shared`, for scheduling the next capture once the
    /// frame due exactly now has been taken.
    public func frameIndex(after shared: Int64) -> Int64 {
        rate.firstFrame(atOrAfter: shared == Int64.max ? shared : shared + 1)
    }

    /// The frame whose instant is nearest to `shared` (ties go to the earlier frame).
    public func nearestFrameIndex(to shared: Int64) -> Int64 {
        let next = rate.firstFrame(atOrAfter: shared)
        let previous = next - 1
        return shared - rate.instant(ofFrame: previous) <= rate.instant(ofFrame: next) - shared ? previous : next
    }

    public func sharedInstant(ofFrame k: Int64) -> Int64 {
        rate.instant(ofFrame: k)
    }

    /// How far `shared` lies from the nearest frame's instant (negative: before it): a
    /// frame's phase against the grid.
    public func offsetFromNearestFrame(_ shared: Int64) -> Int64 {
        shared - sharedInstant(ofFrame: nearestFrameIndex(to: shared))
    }
}
