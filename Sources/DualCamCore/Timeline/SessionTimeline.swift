/// One session's time axis: presentation time is `shared − T0`, and the composite's
/// output ticks sit on the exact rational grid of the session's frame rate from there.
public struct SessionTimeline: Sendable, Hashable {
    /// The start instant `T0` on the shared clock.
    public let t0SharedNanoseconds: Int64
    public let rate: FrameRate

    public init(t0SharedNanoseconds: Int64, rate: FrameRate) {
        self.t0SharedNanoseconds = t0SharedNanoseconds
        self.rate = rate
    }

    public func presentationNanoseconds(shared: Int64) -> Int64 {
        shared - t0SharedNanoseconds
    }

    public func shared(presentation: Int64) -> Int64 {
        presentation + t0SharedNanoseconds
    }

    /// Presentation time of composite output tick `k`.
    public func outputTickInstant(_ k: Int64) -> Int64 {
        rate.instant(ofFrame: k)
    }

    /// The first output tick at or after presentation time `presentation`.
    public func outputTick(atOrAfterPresentation presentation: Int64) -> Int64 {
        rate.firstFrame(atOrAfter: presentation)
    }

    /// Number of output ticks in `[0, durationNanoseconds)`.
    public func tickCount(durationNanoseconds: Int64) -> Int64 {
        durationNanoseconds <= 0 ? 0 : rate.firstFrame(atOrAfter: durationNanoseconds)
    }
}
