import DualCamCore
import DualCamMedia
import Foundation
import Logging

/// Before recording: is there room for the whole session at its bitrate?
public enum SpacePlan {
    public static func bitsPerSecond(_ settings: RecordingSettings) -> Int {
        BitrateEstimate.bitsPerSecond(width: settings.width, height: settings.height, framesPerSecond: settings.rate.framesPerSecond,
                                      crf: settings.crf, bitrate: settings.bitrate)
    }

    /// With no planned length, the least that must fit before a recording starts.
    public static let minimumUnplannedSeconds = 60.0

    /// What to say before recording with `free` bytes: `refusal` stops the start.
    public struct Verdict: Equatable, Sendable {
        public var refusal: String?
        public var warning: String?
        public var note: String?
    }

    /// Pure: the verdict for a recording of `seconds` (nil: until stopped) at `path`.
    public static func verdict(settings: RecordingSettings, seconds: Double?, free: Int64, at path: String) -> Verdict {
        var verdict = Verdict()
        let bits = bitsPerSecond(settings)
        let planned = seconds ?? minimumUnplannedSeconds
        let needed = DiskSpace.needed(bitsPerSecond: bits, seconds: planned, reserveBytes: settings.diskReserveBytes)
        if free < needed {
            let what = seconds == nil ? "a recording with no set length needs room for at least \(Int(planned)) s, which"
                                      : "a \(Int(planned)) s recording"
            verdict.refusal = "not enough disk space at \(path): \(what) at \(bits / 1000) kbit/s needs "
                + "\(DiskSpace.megabytes(needed)) (with margin), \(DiskSpace.megabytes(free)) is free. "
                + "Free space, record less, or lower --bitrate"
        } else if seconds == nil {
            let perSecond = Double(DiskSpace.needed(bitsPerSecond: bits, seconds: 1, reserveBytes: 0))
            let fits = Double(free - settings.diskReserveBytes) / perSecond
            verdict.note = "no set length: about \(fits >= 7200 ? "\(Int(fits / 3600)) h" : "\(Int(fits / 60)) min") fit in "
                + "\(DiskSpace.megabytes(free)) free at \(bits / 1000) kbit/s; recording stops there with every segment kept"
        }
        if free < DiskSpace.warnBytes {
            verdict.warning = "only \(DiskSpace.megabytes(free)) free at \(path); recording stops when the disk nearly fills"
        }
        return verdict
    }

    /// Throws when the planned recording does not fit; warns when free space is low.
    public static func check(settings: RecordingSettings, seconds: Double?, at path: String, logger: Logger) throws {
        guard let free = FreeSpace.bytes(at: path) else { return }
        let verdict = verdict(settings: settings, seconds: seconds, free: free, at: path)
        if let refusal = verdict.refusal { throw SpoolError(refusal) }
        if let warning = verdict.warning { logger.warning("\(warning)") }
        if let note = verdict.note { logger.info("\(note)") }
    }
}
