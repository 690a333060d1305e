import DualCamCore
import DualCamMedia

/// The sync report's second, independent measure: every microphone hears both voices,
/// so cross-correlating the cameras' sound tells how far apart the nodes really were,
/// at the start and at the end of the session, whatever the clocks claimed.
enum AudioSyncCheck {
    struct Entry: Codable, Sendable {
        /// The camera measured, against `reference`.
        var camera: String
        var reference: String
        /// Positive: the same sound is later in `camera`'s file than in `reference`'s.
        var startOffsetNanoseconds: Int64
        var startConfidence: Double
        var endOffsetNanoseconds: Int64
        var endConfidence: Double
        /// End minus start: how much the nodes drifted apart over the session.
        var driftNanoseconds: Int64
        var spanSeconds: Double
    }

    /// Windows this long at each end of the session.
    static let windowNanoseconds: Int64 = 20_000_000_000
    static let maxLagNanoseconds: Int64 = 250_000_000

    /// One entry per camera after the first, against the first; cameras without sound,
    /// or silent in a window, are left out.
    static func measure(files: [String], names: [String], durationNanoseconds: Int64) -> [Entry] {
        guard files.count > 1, durationNanoseconds > 2_000_000_000 else { return [] }
        let window = min(windowNanoseconds, durationNanoseconds / 2)
        let starts: [Int64] = [0, durationNanoseconds - window]
        func windows(_ path: String) -> [DecodedTrack]? {
            let tracks = starts.compactMap { try? AudioTrackReader.read(path: path, fromNanoseconds: $0, toNanoseconds: $0 + window) }
            return tracks.count == starts.count ? tracks : nil
        }
        guard let reference = windows(files[0]) else { return [] }
        var entries: [Entry] = []
        for i in 1..<files.count {
            guard let other = windows(files[i]), other[0].sampleRate == reference[0].sampleRate else { continue }
            let rate = reference[0].sampleRate
            guard let start = AudioCorrelation.offset(reference: reference[0].mono, other: other[0].mono, sampleRate: rate,
                                                      maxLagNanoseconds: maxLagNanoseconds),
                  let end = AudioCorrelation.offset(reference: reference[1].mono, other: other[1].mono, sampleRate: rate,
                                                    maxLagNanoseconds: maxLagNanoseconds) else { continue }
            entries.append(Entry(camera: names[i], reference: names[0],
                                 startOffsetNanoseconds: start.nanoseconds, startConfidence: start.confidence,
                                 endOffsetNanoseconds: end.nanoseconds, endConfidence: end.confidence,
                                 driftNanoseconds: end.nanoseconds - start.nanoseconds,
                                 spanSeconds: Double(starts[1] - starts[0]) / 1e9))
        }
        return entries
    }

    /// Confidence under which a measured offset is not trusted enough to warn about.
    static let warningConfidence = 0.5

    /// A warning for each node whose sound was further than a tenth of a frame from the
    /// reference's, at the start or the end, where the measure is confident.
    static func warnings(_ entries: [Entry], periodNanoseconds: Int64) -> [String] {
        let limit = periodNanoseconds / 10
        return entries.compactMap { e in
            let apart = [(e.startOffsetNanoseconds, e.startConfidence), (e.endOffsetNanoseconds, e.endConfidence)]
                .filter { $0.1 >= warningConfidence }.map { $0.0.magnitude }.max() ?? 0
            guard apart > limit else { return nil }
            return String(format: "%@ was %.2f ms from %@ by their sound (a tenth of a frame is %.2f ms)",
                          e.camera, Double(apart) / 1e6, e.reference, Double(limit) / 1e6)
        }
    }
}
