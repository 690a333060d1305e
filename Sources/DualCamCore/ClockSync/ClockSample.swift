/// One NTP-style exchange: the agent sends at `t1` (its local clock), the coordinator
/// receives at `t2` and replies at `t3` (shared clock), the agent receives at `t4` (local).
public struct ClockSample: Sendable, Hashable {
    public var t1: Int64
    public var t2: Int64
    public var t3: Int64
    public var t4: Int64

    public init(t1: Int64, t2: Int64, t3: Int64, t4: Int64) {
        self.t1 = t1
        self.t2 = t2
        self.t3 = t3
        self.t4 = t4
    }

    /// `shared − local` at the local midpoint of the exchange, exact when the two one-way
    /// delays are equal; off by half their difference otherwise.
    public var offsetNanoseconds: Double {
        (Double(t2 &- t1) + Double(t3 &- t4)) / 2
    }

    /// Time spent on the wire, both ways (the coordinator's turnaround excluded). The
    /// offset can be wrong by at most half of it, whatever the delays were.
    public var delayNanoseconds: Int64 {
        (t4 &- t1) &- (t3 &- t2)
    }

    /// The local instant the offset refers to.
    public var localMidpointNanoseconds: Int64 {
        t1 &+ (t4 &- t1) / 2
    }

    /// Timestamps that no real exchange can produce (a clock ran backwards inside it).
    public var isPlausible: Bool {
        t4 >= t1 && t3 >= t2 && delayNanoseconds >= 0
    }
}
