import DualCamCore
import Foundation
import Logging

/// Before recording: is there room for the whole session at its bitrate?
public enum SpacePlan {
    /// Bits per second the encoder will produce: the set bitrate, or for quality (CRF)
    /// mode a generous estimate (0.1 bit per pixel at veryfast, CRF 23, for a talking
    /// head), since running out mid-session is worse than a cautious refusal.
    public static func bitsPerSecond(_ settings: RecordingSettings) -> Int {
        if let bitrate = settings.bitrate { return bitrate }
        let pixelsPerSecond = Double(settings.width * settings.height) * settings.rate.framesPerSecond
        let crf = Double(settings.crf ?? 23)
        // Each 6 CRF steps roughly halve or double the rate.
        return Int(pixelsPerSecond * 0.1 * pow(2, (23 - crf) / 6))
    }

    /// Throws when the planned recording does not fit; warns when free space is low.
    public static func check(settings: RecordingSettings, seconds: Double?, at path: String, logger: Logger) throws {
        guard let free = DiskSpace.freeBytes(at: path) else { return }
        if let seconds {
            let bits = bitsPerSecond(settings)
            let needed = DiskSpace.needed(bitsPerSecond: bits, seconds: seconds, reserveBytes: settings.diskReserveBytes)
            if free < needed {
                throw SpoolError("not enough disk space at \(path): a \(Int(seconds)) s recording at "
                    + "\(bits / 1000) kbit/s needs \(DiskSpace.megabytes(needed)) (with margin), "
                    + "\(DiskSpace.megabytes(free)) is free. Free space, record less, or lower --bitrate")
            }
        }
        if free < DiskSpace.warnBytes {
            logger.warning("only \(DiskSpace.megabytes(free)) free at \(path); recording stops when the disk nearly fills")
        }
    }
}
