import ArgumentParser
import DualCamNet
import Foundation
import Glibc

/// The agent service's state folder, made by the `dualcam-agent` package: owned by the
/// `dualcam` system user, mode 0700. Where it exists, every agent command uses it unless
/// given `--state` (or `DUALCAM_STATE_DIR`), so that `sudo dualcam-agent pair`, `id`,
/// `paired` and `unpair` act on the node's running service, not on a second identity in
/// root's home.
enum ServiceState {
    static let directory = "/var/lib/dualcam"

    /// `--state`, else `DUALCAM_STATE_DIR`, else the service's folder where the package
    /// made it, else `$XDG_STATE_HOME/dualcam/agent`.
    static func defaultDirectory(given: String?) -> String {
        if let given { return given }
        let env = ProcessInfo.processInfo.environment["DUALCAM_STATE_DIR"] ?? ""
        var isFolder: ObjCBool = false
        if env.isEmpty, FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue {
            return directory
        }
        return StatePaths.defaultDirectory(for: "agent")
    }

    /// Makes the folder usable by this process before anything is read or written there.
    /// Root acting on a folder another user owns (the service's) becomes that user first,
    /// with its groups: a file root wrote there (an identity, `paired.json`) would be
    /// unreadable to the service. Anyone else who cannot enter it is told to use sudo.
    static func enter(_ folder: String) throws {
        var info = stat()
        guard stat(folder, &info) == 0 else { return }   // made later, by this process, as it is
        if geteuid() == 0 {
            guard info.st_uid != 0 else { return }
            try become(uid: info.st_uid, folder: folder)
        } else if access(folder, R_OK | W_OK | X_OK) != 0 {
            let owner = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
            throw ValidationError("""
                cannot use the state folder \(folder) (it belongs to \(owner), mode \
                \(String(info.st_mode & 0o777, radix: 8))): run this command as root (with sudo), \
                or give --state DIR for an agent of your own
                """)
        }
    }

    private static func become(uid: uid_t, folder: String) throws {
        guard let entry = getpwuid(uid) else {
            throw ValidationError("the state folder \(folder) belongs to uid \(uid), which has no user entry: chown it to the agent's user")
        }
        let name = String(cString: entry.pointee.pw_name)
        let gid = entry.pointee.pw_gid
        // Groups first, while still root; then the group, then the user (no way back).
        guard initgroups(name, gid) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            throw ValidationError("cannot act as \(name), the owner of \(folder): \(String(cString: strerror(errno)))")
        }
    }
}

extension StateOption {
    /// The folder this command uses, made usable by this process (see `ServiceState.enter`).
    func enter() throws -> String {
        let folder = directory
        try ServiceState.enter(folder)
        return folder
    }
}
