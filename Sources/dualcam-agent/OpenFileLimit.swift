import Glibc

/// The open-file limit, raised to its hard maximum at start. Recording holds a camera,
/// encoder, segment and spool files and two connections; strangers' connections are
/// capped (`ConnectionAdmission`), but a soft limit of 1024 (a shell's default) left
/// little room. The systemd units raise the hard limit too (LimitNOFILE).
enum OpenFileLimit {
    /// Best effort: returns the soft limit in force afterwards.
    @discardableResult
    static func raise() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return UInt64(limit.rlim_cur)
    }
}
