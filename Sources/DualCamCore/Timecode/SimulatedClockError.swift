/// The wrong clock a simulated agent is told to see (`TIMECODE.md`, "Simulated clock
/// error"): `local(t) = t + offset + skew_ppm * 1e-6 * (t - t_start)`.
public struct SimulatedClockError: Sendable, Equatable {
    public var offsetNanoseconds: Int64
    public var skewPPM: Double
    /// The true instant the skew is measured from (the agent process's start).
    public var processStartNanoseconds: Int64

    public init(offsetNanoseconds: Int64, skewPPM: Double, processStartNanoseconds: Int64) {
        precondition(skewPPM > -1_000_000, "skew must keep the clock running forwards")
        self.offsetNanoseconds = offsetNanoseconds
        self.skewPPM = skewPPM
        self.processStartNanoseconds = processStartNanoseconds
    }

    public static let none = SimulatedClockError(offsetNanoseconds: 0, skewPPM: 0, processStartNanoseconds: 0)

    public func local(fromTrue t: Int64) -> Int64 {
        let elapsed = t &- processStartNanoseconds
        return t &+ offsetNanoseconds &+ drift(elapsed)
    }

    /// The true instant whose local reading is `l`, exact to ±1 ns: a floating first guess,
    /// then integer correction against `local`, which is monotonic.
    public func trueTime(fromLocal l: Int64) -> Int64 {
        let elapsedLocal = l &- offsetNanoseconds &- processStartNanoseconds
        let guess = Double(elapsedLocal) / (1 + skewPPM * 1e-6)
        var t = processStartNanoseconds &+ Int64(guess.rounded())
        for _ in 0..<4 {
            let error = local(fromTrue: t) &- l
            if error == 0 { break }
            t &-= error
        }
        return t
    }

    private func drift(_ elapsed: Int64) -> Int64 {
        guard skewPPM != 0 else { return 0 }
        // Split so the product keeps nanosecond precision for elapsed times far beyond 2^53 ns.
        let seconds = elapsed / 1_000_000_000, rest = elapsed % 1_000_000_000
        let perSecond = skewPPM * 1_000  // ns of drift per second
        return Int64((Double(seconds) * perSecond + Double(rest) * skewPPM * 1e-6).rounded())
    }
}
