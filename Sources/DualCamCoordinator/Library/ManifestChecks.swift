import DualCamCore
import Foundation

/// A manifest is read back from disk, where anything may have been written into it (a
/// bad card, an editor, someone hostile): the values later turned into integers, file
/// paths or loop bounds are checked once here, so that a damaged manifest is reported
/// as damaged instead of trapping `list` or sending `recompose` outside the folder.
extension SessionManifest {
    /// Longer than any take (11.5 days); what lies beyond is damage, and would overflow
    /// the nanosecond arithmetic of a recompose.
    static let longestSeconds = 1_000_000.0

    /// What is implausible in this manifest, in words; empty when it can be used.
    var problems: [String] {
        var found: [String] = []
        if !durationSeconds.isFinite || !(0...Self.longestSeconds).contains(durationSeconds) {
            found.append("durationSeconds \(durationSeconds) is not 0 to \(Int(Self.longestSeconds))")
        }
        found += Self.checkSettings(settings)
        let composites = [composite] + (renders ?? [])
        for name in cameras.map(\.file) + cameras.compactMap(\.soundFile) + composites.map(\.file)
            + [contactSheet?.file, contactSheet?.thumbnail].compactMap({ $0 })
        where !SessionFileName.isPlain(name) {
            found.append("file name '\(name)' is not a plain name inside the session folder")
        }
        if cameras.isEmpty { found.append("no cameras") }
        let counts = composites.flatMap { [$0.ticks, $0.pairs, $0.repeats, $0.noSignal, $0.droppedFrames] }
            + cameras.flatMap { [$0.statistics.framesCaptured, $0.statistics.framesDropped, $0.statistics.segments] }
        if counts.contains(where: { $0 < 0 }) { found.append("a negative frame or segment count") }
        for encoding in composites.compactMap(\.encoding) {
            if !(1...100_000).contains(encoding.gopFrames) { found.append("gopFrames \(encoding.gopFrames) is not 1 to 100000") }
            if let crf = encoding.crf, !(0...51).contains(crf) { found.append("crf \(crf) is not 0 to 51") }
            if let bitrate = encoding.bitrate, bitrate <= 0 { found.append("bitrate \(bitrate) is not positive") }
        }
        if composites.contains(where: { $0.timeline.contains { $0.presentationNanoseconds < 0 } }) {
            found.append("a layout change before the start")
        }
        if !doubles.allSatisfy(\.isFinite) { found.append("a figure that is not a finite number") }
        return found
    }

    private static func checkSettings(_ s: Settings) -> [String] {
        var found: [String] = []
        if !(2...16_384).contains(s.width) || !(2...16_384).contains(s.height) {
            found.append("picture size \(s.width)x\(s.height) is not 2x2 to 16384x16384")
        }
        if FrameRate(parsing: s.fps) == nil { found.append("frame rate '\(s.fps)' is not a rate") }
        if !(0...51).contains(s.crf) { found.append("crf \(s.crf) is not 0 to 51") }
        if !(1...3_600_000).contains(s.segmentMilliseconds) {
            found.append("segmentMilliseconds \(s.segmentMilliseconds) is not 1 to 3600000")
        }
        return found
    }

    /// Every floating-point figure, for the finiteness check.
    private var doubles: [Double] {
        var all = [durationSeconds]
        for d in ([composite] + (renders ?? [])).flatMap({ [$0.frameError, $0.pairSpread] }) {
            all += [d.meanMicroseconds, d.p50Microseconds, d.p99Microseconds, d.maxMicroseconds]
        }
        for st in cameras.map(\.statistics) {
            all += [st.clockOffsetNanoseconds, st.clockRatePPM]
            if let h = st.clockOverSession {
                all += [h.errorBoundP50Microseconds, h.errorBoundP99Microseconds, h.errorBoundMaxMicroseconds,
                        h.roundTripP50Microseconds, h.roundTripMaxMicroseconds, h.offsetMinMilliseconds,
                        h.offsetMaxMilliseconds, h.rateMinPPM, h.rateMaxPPM]
            }
        }
        for entry in audioSync ?? [] { all += [entry.startConfidence, entry.endConfidence, entry.spanSeconds] }
        return all
    }
}
