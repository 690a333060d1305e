import DualCamCoordinator
import DualCamCore
import Foundation
import Testing

/// The director on real voices: tools/conversation renders the scripted interview and
/// panel with espeak-ng (crosstalk 6 and 12 dB down, room noise at −45 dBFS), and the
/// cuts are scored against the script's truth. The goals, asserted.
@Suite struct DirectorConversationTests {
    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/conversation").path

    static func render(_ script: String, crosstalkDB: Double) throws -> String {
        let folder = NSTemporaryDirectory() + "dualcam-talk-\(UUID().uuidString)"
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        make.arguments = [tools + "/make-conversation.py", tools + "/" + script, "--out", folder, "--crosstalk-db", "\(crosstalkDB)"]
        make.standardOutput = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0, "make-conversation.py failed: is espeak-ng installed (deploy/install-deps.sh)?")
        return folder
    }

    @Test(arguments: [("interview.txt", 6.0), ("interview.txt", 12.0), ("panel.txt", 6.0), ("panel.txt", 12.0)])
    func theDirectorFollowsAScriptedConversation(script: String, crosstalkDB: Double) throws {
        let folder = try Self.render(script, crosstalkDB: crosstalkDB)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tuning = DirectorTuning()
        let result = try DirectorEvaluation.run(folder: folder, tuning: tuning)
        let s = result.score
        #expect(s.shownShare >= 0.95, "\(s)")
        #expect(s.medianCutDelay <= 0.7, "\(s)")
        #expect(s.cutDelays.count >= 9, "\(s)")
        #expect(s.shortestShot >= tuning.minShot - 0.0101, "\(s)")
        #expect(s.cutsOnNonTurns == 0, "\(s)")
        #expect(s.longOverlaps >= 1 && s.longOverlapsShownTogether == s.longOverlaps, "\(s)")
    }
}
