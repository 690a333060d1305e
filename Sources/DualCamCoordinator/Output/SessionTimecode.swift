import DualCamCore
import DualCamMedia
import Foundation

/// The session's timecode: T0's time of day on this coordinator, as its local clock on the
/// wall reads it, quantised to a frame of the session's rate. Every file of the session
/// counts from it, so the same instant carries the same timecode in all of them.
enum SessionTimecode {
    /// Nil at a rate a timecode track cannot carry (12.5 fps, say): the files then have none.
    static func atT0(t0Shared: Int64, nowShared: Int64, now: Date = Date(), rate: FrameRate,
                     calendar: Calendar = .current) -> SMPTETimecode? {
        guard SMPTETimecode.supports(rate) else { return nil }
        let wallT0 = now.addingTimeInterval(Double(t0Shared - nowShared) / 1e9)
        let midnight = calendar.startOfDay(for: wallT0)
        let nanoseconds = Int64((wallT0.timeIntervalSince(midnight) * 1e9).rounded())
        return SMPTETimecode(timeOfDayNanoseconds: nanoseconds, rate: rate)
    }

    /// The timecode text a session's record or manifest holds, read back at its rate.
    static func parse(_ text: String?, fps: String) -> SMPTETimecode? {
        guard let text, let rate = FrameRate(parsing: fps) else { return nil }
        return SMPTETimecode(parsing: text, rate: rate)
    }

    /// What each file says about itself: which camera and session it is, for an editor's
    /// bins and for whoever finds the file alone.
    static func tags(camera: String, role: String, sessionID: String, creation: Int64?, timecode: SMPTETimecode?) -> MP4Tags {
        MP4Tags(creationTimeUnixSeconds: creation, timecode: timecode?.description,
                    metadata: ["title": "\(camera) — DualCam session \(sessionID)",
                               "album": "DualCam session \(sessionID)",
                               "artist": camera,
                               "comment": "DualCam session=\(sessionID) camera=\(camera) role=\(role) reel=\(camera)",
                               "description": "DualCam \(role) camera \(camera), session \(sessionID)"],
                    trackName: camera)
    }
}

