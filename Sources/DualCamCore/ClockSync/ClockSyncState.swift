/// How far the estimator trusts itself.
public enum ClockSyncState: Sendable, Hashable {
    /// No usable sample yet, or just restarted after a clock step.
    case unsynced
    /// An estimate exists but rests on too few samples or too short a span for its rate.
    case converging
    /// Enough samples over a long enough span; polling slows down.
    case locked
}
