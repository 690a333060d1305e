import DualCamCore
import DualCamMedia
import Foundation

/// Free space where the spool lives, and what a recording will need of it.
public enum DiskSpace {
    /// Below this the agent warns at start and in its telemetry.
    public static let warnBytes: Int64 = 500 * 1_000_000

    /// Bytes a recording of `seconds` at `bitsPerSecond` needs (with the margin of
    /// `BitrateEstimate.storageBytes`), plus the reserve at which the agent stops.
    public static func needed(bitsPerSecond: Int, seconds: Double, reserveBytes: Int64) -> Int64 {
        Int64(BitrateEstimate.storageBytes(bitsPerSecond: bitsPerSecond, seconds: seconds)) + reserveBytes
    }

    public static func megabytes(_ bytes: Int64) -> String { "\(bytes / 1_000_000) MB" }

    /// What to tell the user when a write failed because the disk is full (another
    /// program filled it faster than the reserve check could see); nil for other errors.
    static func fullDiskMessage(for error: any Error, path: String) -> String? {
        let noSpace = String(cString: strerror(ENOSPC))
        guard (error as? FFmpegError)?.code == -ENOSPC || "\(error)".contains(noSpace) else { return nil }
        return "the disk holding \(path) is full (\(error)): recording stopped; every completed segment is kept, "
            + "the one being written was discarded. Free space, or record to a larger disk"
    }
}

/// Stops a recording before the disk fills: checked at each segment boundary against a
/// reserve of a few segments, so the last complete segment always fits.
public struct DiskGuard {
    public static let defaultReserveBytes: Int64 = 64 * 1_000_000
    let path: String
    let minimumReserveBytes: Int64
    var lastSegmentBytes = 0

    init(path: String, minimumReserveBytes: Int64) {
        self.path = path
        self.minimumReserveBytes = minimumReserveBytes
    }

    var reserveBytes: Int64 { max(minimumReserveBytes, Int64(lastSegmentBytes) * 3) }

    func check() throws {
        guard let free = FreeSpace.bytes(at: path) else { return }
        if free < reserveBytes {
            throw SpoolError("the disk holding \(path) is nearly full (\(DiskSpace.megabytes(free)) free, "
                + "\(DiskSpace.megabytes(reserveBytes)) kept in reserve): recording stopped; every completed segment is kept. "
                + "Free space, or record to a larger disk")
        }
    }
}
