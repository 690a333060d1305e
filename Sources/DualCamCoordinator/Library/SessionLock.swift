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
        // O_NOFOLLOW: a `.lock` planted as a symbolic link would otherwise have its target
        // truncated and overwritten with our note below.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard fd >= 0 else {
            let reason = errno
            if reason == ELOOP {
                throw CoordinatorError("\(path) is a symbolic link, and DualCam never writes through one; "
                    + "remove it (rm '\(path)') and try again")
            }
            throw CoordinatorError("cannot open \(path) to lock the session: \(String(cString: strerror(reason)))")
        }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw CoordinatorError("\(path) is not a regular file (a FIFO or device put there?); remove it and try again")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.note(fd)
            close(fd)
            throw CoordinatorError("session \((sessionDirectory as NSString).lastPathComponent) is in use by another dualcam-coordinator"
                + (holder.isEmpty ? "" : " (\(holder))") + "; wait until it has finished, then try again")
        }
        // Who holds it, for the message above; the lock itself is the flock.
        ftruncate(fd, 0)
        let note = "pid \(getpid()), \(purpose)\n"
        _ = note.withCString { pwrite(fd, $0, strlen($0), 0) }
        descriptor = fd
    }

    /// The holder's note, read through the descriptor already opened without following
    /// links rather than by path again.
    private static func note(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return "" }
        return String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// True when some process holds the session's lock now.
    public static func isHeld(sessionDirectory: String) -> Bool {
        let fd = open(sessionDirectory + "/" + fileName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
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
