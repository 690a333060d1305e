import Foundation
import Glibc

/// Append-only JSON-lines files that must survive a crash (spool manifests, receipt
/// lists): each line is written with one `write` and fsynced before the call returns.
public enum DurableLines {
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func append(_ line: Data, to path: String) throws(WriteError) {
        var bytes = line
        if bytes.last != 0x0A { bytes.append(0x0A) }
        // O_NOFOLLOW: a list planted as a symbolic link would have lines appended to
        // whatever file it points at.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            let reason = errno
            if reason == ELOOP {
                throw WriteError(description: "cannot write \(path): it is a symbolic link, and DualCam never writes through one; remove it")
            }
            throw WriteError(description: "cannot open \(path): \(String(cString: strerror(reason)))")
        }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            throw WriteError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
