import Foundation

/// The folder sessions are written into, checked before anything slow happens (finding
/// agents, syncing clocks): made if missing, and proved writable by writing into it, so
/// that a typo or a read-only disk is told at once, by path and system reason.
public enum OutputFolder {
    public static func prepare(_ path: String, option: String = "--out") throws {
        var component = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            component += "/" + part
            var status = stat()
            if stat(component, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else {
                    throw CoordinatorError("\(option) \(path): \(component) is a file, not a folder; choose another folder with \(option)")
                }
                continue
            }
            guard mkdir(component, 0o755) == 0 || errno == EEXIST else { throw failure(path, option, doing: "make \(component)") }
        }
        let probe = path + "/.dualcam-write-test-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw failure(path, option, doing: "write into it") }
        close(descriptor)
        unlink(probe)
    }

    private static func failure(_ path: String, _ option: String, doing: String) -> CoordinatorError {
        let code = errno
        let reason = String(cString: strerror(code))
        let advice: String
        switch code {
        case EROFS: advice = "the disk is mounted read-only; choose a folder on another disk with \(option)"
        case EACCES, EPERM: advice = "choose a folder you may write to with \(option), or change its permissions"
        case ENOSPC, EDQUOT: advice = "free some space there, or choose a folder on another disk with \(option)"
        default: advice = "choose another folder with \(option)"
        }
        return CoordinatorError("cannot record into \(path): cannot \(doing) (\(reason)); \(advice)")
    }
}
