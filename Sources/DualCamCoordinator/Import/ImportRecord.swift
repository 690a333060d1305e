/// One recording from another device, placed on the session's timeline by its sound: an
/// entry of the manifest's `imports` (docs/IMPORT.md).
struct ImportRecord: Codable, Sendable {
    /// One stretch the recorder ran without a pause.
    struct Piece: Codable, Sendable {
        /// The stretch in the original file, seconds from its first sample.
        var fileStartSeconds: Double
        var fileEndSeconds: Double
        /// Session time (seconds from T0) at which the stretch's first sample was recorded.
        var offsetSeconds: Double
        var driftPpm: Double
        /// Windows of the file found on this stretch's line, and their scatter about it.
        var matchedWindows: Int
        var residualMicroseconds: Double
    }
    /// The aligned copy's sound against the take's, measured after writing it.
    struct LipSync: Codable, Sendable {
        var startMs: Double?
        var middleMs: Double?
        var endMs: Double?
    }
    /// A video's pictures on the session's timeline, copied packet for packet.
    struct Video: Codable, Sendable {
        /// Relative to the session folder: an MP4 whose times are the session's (from T0).
        var file: String
        /// Session time of its first picture (a key frame at or after T0).
        var firstPictureSeconds: Double
        var pictures: Int
        /// Pictures recorded before T0 (up to the first key frame after it), left out.
        var leftOutBeforeT0: Int
    }
    var name: String
    /// The aligned copy on the session's timeline (its first sample at T0), relative to
    /// the session folder.
    var file: String
    /// The original, copied untouched, relative to the session folder.
    var original: String
    /// Where it was imported from.
    var source: String
    /// "sound", or "video" for a file with moving pictures.
    var kind: String
    /// The video's pictures retimed onto the session, for a video.
    var video: Video? = nil
    var format: String
    var durationSeconds: Double
    /// Session time (seconds from T0) at which the file's first sample was recorded.
    var offsetSeconds: Double
    /// How much faster the file's sample clock ran than the shared clock.
    var driftPpm: Double
    /// The share (0–1) of the file's windows that could match the take's sound and did.
    var confidence: Double
    var pieces: [Piece]
    var lipSync: LipSync?
    /// Seconds of the file recorded before T0, which the aligned copy leaves out.
    var beforeT0Seconds: Double
    var importedAt: String
    var alignSeconds: Double
}
