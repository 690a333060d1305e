import Foundation

/// One coordinator process at a time writes a session: recording, resuming, recomposing
/// or deleting it. Two at once would interleave segments or rename a file from under the
/// other. An advisory `flock` on `.lock` in the session folder: the kernel drops it when
/// the holder exits, so a killed coordinator never leaves a session locked.
public final class SessionLock: Sendable {
    static let fileName = ".lock"
    private let descriptor: Int32

    /// Takes the lock or says which process holds it and what to do.
    public init(sessionDirectory: String, purpose: String) throws {
        let path = sessionDirectory + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CoordinatorError("cannot open \(path) to lock the session: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(fd)
            throw CoordinatorError("session \((sessionDirectory as NSString).lastPathComponent) is in use by another dualcam-coordinator"
                + (holder.isEmpty ? "" : " (\(holder))") + "; wait until it has finished, then try again")
        }
        // Who holds it, for the message above; the lock itself is the flock.
        ftruncate(fd, 0)
        let note = "pid \(getpid()), \(purpose)\n"
        _ = note.withCString { write(fd, $0, strlen($0)) }
        descriptor = fd
    }

    /// True when some process holds the session's lock now.
    public static func isHeld(sessionDirectory: String) -> Bool {
        let fd = open(sessionDirectory + "/" + fileName, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
