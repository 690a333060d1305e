import Foundation

/// Where a node keeps its identity and pairings: `$XDG_STATE_HOME/dualcam/<role>` (or
/// `~/.local/state/dualcam/<role>`) for a user, `/var/lib/dualcam` for the service
/// (which sets `--state` or `DUALCAM_STATE_DIR`).
public enum StatePaths {
    public static func defaultDirectory(for component: String) -> String {
        let env = ProcessInfo.processInfo.environment
        if let explicit = env["DUALCAM_STATE_DIR"], !explicit.isEmpty { return explicit }
        if let xdg = env["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/dualcam/" + component }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/dualcam/" + component
    }
}
