import DualCamCore
import Foundation

/// `session.json` is read back by `resume` and by every `start` in the same folder: its
/// values become a plan, durations in nanoseconds and names on the screen, so those
/// that could trap or mislead are checked here and the file called damaged instead.
extension SessionRecord {
    /// What is implausible in the record, in words; empty when it can be resumed.
    var problems: [String] {
        var found: [String] = []
        if !SessionRecord.isSafeID(sessionID) { found.append("session ID '\(sessionID.prefix(80))' is not a plain name") }
        if !wallStartUnixSeconds.isFinite || !(0...1e11).contains(wallStartUnixSeconds) {
            found.append("wallStartUnixSeconds \(wallStartUnixSeconds) is not a date")
        }
        if t0SharedNanoseconds < 0 { found.append("t0SharedNanoseconds is negative") }
        if stopSharedNanoseconds != 0 {
            let (span, overflow) = stopSharedNanoseconds.subtractingReportingOverflow(t0SharedNanoseconds)
            // A stop at T0 is a take cancelled during its countdown (nothing recorded).
            if overflow || span < 0 || Double(span) / 1e9 > SessionManifest.longestSeconds {
                found.append("the stop is not within \(Int(SessionManifest.longestSeconds)) s after the start")
            }
        }
        if !(2...16_384).contains(width) || !(2...16_384).contains(height) {
            found.append("picture size \(width)x\(height) is not 2x2 to 16384x16384")
        }
        if FrameRate(parsing: fps) == nil { found.append("frame rate '\(fps.prefix(40))' is not a rate") }
        if !(0...51).contains(crf) { found.append("crf \(crf) is not 0 to 51") }
        if !(1...3_600_000).contains(segmentMilliseconds) {
            found.append("segmentMilliseconds \(segmentMilliseconds) is not 1 to 3600000")
        }
        if !(0...100).contains(filterIntensity) { found.append("filterIntensity \(filterIntensity) is not 0 to 100") }
        if agents.isEmpty { found.append("no agents") }
        for agent in agents {
            if !(1...65_535).contains(agent.port) { found.append("agent port \(agent.port) is not 1 to 65535") }
            if agent.name.count > 100 || agent.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                found.append("an agent name with control characters or over 100 characters")
            }
        }
        return found
    }

    /// Letters, digits, `_`, `-` and `.`, not starting with `.`: the IDs DualCam makes
    /// (`20261124_120000`) and nothing that could climb out of a folder.
    static func isSafeID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 128 && !id.hasPrefix(".")
            && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0)) }
    }
}
