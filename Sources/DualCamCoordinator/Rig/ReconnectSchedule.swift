/// When a lost agent is tried again where it was: every half second for the first minute
/// (a refused connection costs nothing, and a restarted agent is back within seconds),
/// then every 2 s. Counted in the rig's ticks of 250 ms, so that it needs no clock.
struct ReconnectSchedule {
    static let tickNanoseconds: Int64 = 250_000_000
    private var tries = 0
    private var waited = 0

    /// Ticks before the next try: 0.25 s, then 0.5 s for 120 tries, then 2 s.
    private var gap: Int { tries == 0 ? 1 : tries <= 120 ? 2 : 8 }

    /// One tick has passed; true when a try is due now.
    mutating func due() -> Bool {
        waited += 1
        guard waited >= gap else { return false }
        waited = 0
        tries += 1
        return true
    }
}
