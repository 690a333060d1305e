import DualCamCore
import DualCamMedia

/// The aligned copy's Broadcast Wave description: its first sample is T0, so its time
/// reference is the timecode every camera's file starts at.
enum ImportBroadcast {
    static func metadata(name: String, source: ImportSource, manifest: SessionManifest) -> BroadcastWave {
        let rate = FrameRate(parsing: manifest.settings.fps) ?? FrameRate(30)
        let timecode = SessionTimecode.parse(manifest.timecode, fps: manifest.settings.fps)
        let samples = timecode.map { UInt64($0.frames) * UInt64(AlignedSoundWriter.rate) * UInt64(rate.denominator) / UInt64(rate.numerator) } ?? 0
        let wall = manifest.startWallTime
        let rateText = rate.denominator == 1 ? "\(rate.numerator)" : "\(rate.numerator)/\(rate.denominator)"
        return BroadcastWave(
            description: "\(name), imported into DualCam session \(manifest.sessionID), aligned by its sound",
            originator: "DualCam", originatorReference: String("\(manifest.sessionID)-\(name)".prefix(32)),
            originationDate: String(wall.prefix(10)), originationTime: String(wall.dropFirst(11).prefix(8)),
            timeReferenceSamples: samples, timecode: timecode?.description ?? "00:00:00:00", timecodeRate: rateText,
            dropFrame: timecode?.dropFrame ?? false, project: "DualCam \(manifest.sessionID)",
            note: "from \(source.formatDescription); first sample at T0")
    }
}
