import Foundation

/// An advisory `flock` on a file that names its holder: the kernel drops it when the
/// holder exits, so a killed coordinator never leaves anything locked. Shared by the
/// session folder's lock and the state folder's one-rig-at-a-time lock.
final class ProcessLock: Sendable {
    let path: String
    private let descriptor: Int32

    /// Takes the lock, or throws `busy(holder)`'s sentence naming the process that has it.
    init(path: String, purpose: String, busy: (_ holder: String) -> String) throws {
        self.path = path
        // O_NOFOLLOW: a lock file planted as a symbolic link would otherwise have its
        // target truncated and overwritten with our note below.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard fd >= 0 else {
            let reason = errno
            if reason == ELOOP {
                throw CoordinatorError("\(path) is a symbolic link, and DualCam never writes through one; "
                    + "remove it (rm '\(path)') and try again")
            }
            throw CoordinatorError("cannot open \(path) to lock it: \(String(cString: strerror(reason)))")
        }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw CoordinatorError("\(path) is not a regular file (a FIFO or device put there?); remove it and try again")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.note(fd)
            close(fd)
            throw CoordinatorError(busy(holder))
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

    /// True when some process holds the lock at `path` now.
    static func isHeld(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
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
