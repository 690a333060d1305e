import Glibc

/// The open-file limit, raised to its hard maximum at start by both programs. The agent
/// holds a camera, encoder, segment and spool files and its connections; the coordinator
/// a segment file, an MP4 and a decoder per camera, its links and the studio's browsers.
/// Strangers' connections are capped on both (`ConnectionAdmission`), but a soft limit of
/// 1024 (a shell's default) left little room: 1,100 idle connections to the studio once
/// failed a take ("cannot write seg-000002.ts.part"). The systemd units raise the hard
/// limit too (LimitNOFILE).
public enum OpenFileLimit {
    /// Best effort: returns the soft limit in force afterwards.
    @discardableResult
    public static func raise() -> UInt64 {
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
