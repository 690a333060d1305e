import Foundation

/// Free space on the file system holding a path: the agent's spool and the coordinator's
/// session folders are both judged by it.
public enum FreeSpace {
    /// Bytes available to this user on the file system holding `path` (or its nearest
    /// existing parent, for a folder not made yet); nil when none can be measured.
    public static func bytes(at path: String) -> Int64? {
        var stats = statvfs()
        var probe = path
        while statvfs(probe, &stats) != 0 {
            guard probe != "/", !probe.isEmpty else { return nil }
            probe = (probe as NSString).deletingLastPathComponent
            if probe.isEmpty { probe = "/" }
        }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
