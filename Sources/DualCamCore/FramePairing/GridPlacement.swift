/// Where to place the composite's output grid against the cameras' frame phases, so that
/// each tick pairs the frames that are closest to each other and to the tick.
///
/// Each camera's phase is where its frames fall within the period of the grid. Frames are
/// given to the tick nearest them, so the grid's half-way points ("the cut", half a period
/// from each tick) decide which frames go together: a cut that falls between two cameras'
/// phases splits frames that are close in time onto different ticks. Free-running cameras
/// sit anywhere on the period, so on the fixed grid two of them could be shown up to a
/// whole period apart (17.3 ms at 30 fps was seen while a frame 16.0 ms away was there).
/// Placing the cut in the widest gap between the phases keeps every tick's frames within
/// the period minus that gap: at most half a period for two cameras. Among the places in
/// that gap the one nearest the fixed grid is taken, so the pictures stay as near their
/// sound as they can, and genlocked cameras (all phases near zero) keep the fixed grid.
///
/// The widest gap changes hands only when another is wider by `hysteresisNanoseconds`:
/// two nearly equal gaps with jittery stamps would otherwise swap at every tick, and each
/// swap repeats or skips a frame.
public struct GridPlacement: Sendable, Hashable {
    /// One camera's phase: its frames' offset from the nearest tick of the fixed grid, in
    /// [-P/2, P/2); `steady` when its recent frames keep it (a camera at another rate
    /// walks through the period and cannot steer the grid).
    public struct Phase: Sendable, Hashable {
        public var stream: Int
        public var offsetNanoseconds: Int64
        public var steady: Bool

        public init(stream: Int, offsetNanoseconds: Int64, steady: Bool) {
            self.stream = stream
            self.offsetNanoseconds = offsetNanoseconds
            self.steady = steady
        }
    }

    /// The gap the cut sits in, by the streams on either side of it (lower phase first).
    public struct Gap: Sendable, Hashable {
        public var below: Int
        public var above: Int
    }

    public let periodNanoseconds: Int64
    public let hysteresisNanoseconds: Int64
    /// How far the cut stays from a phase it passes by (jittery stamps must not cross it).
    public let marginNanoseconds: Int64

    public init(periodNanoseconds: Int64) {
        precondition(periodNanoseconds > 0, "a period")
        self.periodNanoseconds = periodNanoseconds
        hysteresisNanoseconds = min(500_000, periodNanoseconds / 32)
        marginNanoseconds = periodNanoseconds / 16
    }

    /// The grid's offset (added to every tick's instant) for these phases, in
    /// [-P/2, P/2], and the gap it used; `previous` is the gap used at the tick before.
    public func offset(for phases: [Phase], previous: Gap?) -> (offsetNanoseconds: Int64, gap: Gap?) {
        guard phases.count >= 2 else { return (0, nil) }
        let steady = phases.filter(\.steady).sorted { ($0.offsetNanoseconds, $0.stream) < ($1.offsetNanoseconds, $1.stream) }
        guard !steady.isEmpty else { return (0, nil) }
        let gaps = steady.indices.map { i -> (gap: Gap, low: Int64, length: Int64) in
            let next = (i + 1) % steady.count
            var length = steady[next].offsetNanoseconds - steady[i].offsetNanoseconds
            if next <= i { length += periodNanoseconds }
            return (Gap(below: steady[i].stream, above: steady[next].stream), steady[i].offsetNanoseconds, length)
        }
        // Ties go to the first: the lowest phase's gap.
        var chosen = gaps[0]
        for g in gaps.dropFirst() where g.length > chosen.length { chosen = g }
        if let previous, let kept = gaps.first(where: { $0.gap == previous }),
           kept.length + hysteresisNanoseconds >= chosen.length {
            chosen = kept
        }
        if steady.count < phases.count {
            // Cameras at other rates are taken nearest the tick wherever it is, so the
            // steady ones are put as near it as they can be: the cut in the gap's middle.
            let middle = chosen.low + chosen.length / 2
            return (Self.wrapped(middle - periodNanoseconds / 2, period: periodNanoseconds), chosen.gap)
        }
        let margin = min(chosen.length / 2, marginNanoseconds)
        let lowest = chosen.low + margin, highest = chosen.low + chosen.length - margin
        // The fixed grid's cuts are at P/2 + jP; the nearest one that the gap can reach.
        var best: Int64?
        for j: Int64 in -1...1 {
            let natural = periodNanoseconds / 2 + j * periodNanoseconds
            let cut = min(max(natural, lowest), highest)
            let shift = cut - natural
            if best.map({ shift.magnitude < $0.magnitude }) ?? true { best = shift }
        }
        return (best ?? 0, chosen.gap)
    }

    /// `t` brought into [-P/2, P/2).
    static func wrapped(_ t: Int64, period: Int64) -> Int64 {
        var r = t % period
        if r < -period / 2 { r += period }
        if r >= period - period / 2 { r -= period }
        return r
    }
}
