/// One exchange as the fits use it: the two one-way readings `shared − local`, each
/// exact but for its own (unknown, non-negative) wire delay.
struct ClockObservation: Sendable {
    /// Local send and receive instants.
    var t1: Int64
    var t4: Int64
    /// `t2 − t1`: the offset at `t1` plus the outbound delay.
    var forward: Int64
    /// `t3 − t4`: the offset at `t4` minus the return delay.
    var backward: Int64

    init(_ s: ClockSample) {
        t1 = s.t1
        t4 = s.t4
        forward = s.t2 &- s.t1
        backward = s.t3 &- s.t4
    }

    var delay: Int64 { forward &- backward }
    var midpoint: Int64 { t1 &+ (t4 &- t1) / 2 }
    /// The classic NTP offset, in nanoseconds relative to `base`.
    func offset(relativeTo base: Int64) -> Double {
        (Double(forward &- base) + Double(backward &- base)) / 2
    }
}
