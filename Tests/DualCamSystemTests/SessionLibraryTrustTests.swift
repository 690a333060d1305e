@testable import DualCamCoordinator
import Foundation
import Logging
import Testing

/// The library reads folders anyone may have written into: a damaged or hostile file in
/// one session must neither trap the listing, nor block the next `start`, nor make a
/// command write or delete outside the output folder.
@Suite struct SessionLibraryTrustTests {
    @Test func aDamagedManifestIsListedAsDamagedAndTheRestStillListed() throws {
        let root = try SessionFixtures.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let out = root + "/DualCam"
        try SessionFixtures.session("20261124_120000", in: out, files: ["manifest.json": SessionFixtures.manifest(id: "20261124_120000")])
        try SessionFixtures.session("20261124_120100", in: out,
                                    files: ["manifest.json": SessionFixtures.manifest(id: "20261124_120100", duration: "1e300")])
        let whole = SessionFixtures.manifest(id: "20261124_120200")
        try SessionFixtures.session("20261124_120200", in: out, files: ["manifest.json": String(whole.prefix(whole.count / 2))])
        try SessionFixtures.session("20261124_120300", in: out,
                                    files: ["manifest.json": SessionFixtures.manifest(id: "20261124_120300", hostFile: "../../escaped.mp4")])
        try SessionFixtures.session("20261124_120400", in: out, files: ["session.json": "{\"sessionID\": 12"])
        try SessionFixtures.session("20261124_120500", in: out, files: ["session.json": SessionFixtures.record(id: "20261124_120500")])

        let sessions = SessionLibrary(directories: [out]).sessions()
        let lines = SessionListing.lines(sessions)
        #expect(lines.count == 7, "\(lines)")
        let status = Dictionary(uniqueKeysWithValues: sessions.map { ($0.id, $0.status) })
        #expect(status["20261124_120000"]?.hasPrefix("incomplete: missing") == true, "\(status)")
        #expect(status["20261124_120100"]?.contains("damaged") == true && status["20261124_120100"]?.contains("durationSeconds") == true,
                "\(status)")
        #expect(status["20261124_120200"]?.contains("damaged") == true && status["20261124_120200"]?.contains("not valid JSON") == true,
                "\(status)")
        #expect(status["20261124_120300"]?.contains("damaged") == true && status["20261124_120300"]?.contains("escaped") == true,
                "\(status)")
        #expect(status["20261124_120400"]?.contains("damaged") == true && status["20261124_120400"]?.contains("session.json") == true,
                "\(status)")
        #expect(status["20261124_120500"]?.hasPrefix("unfinished") == true, "\(status)")
        // A damaged manifest has no duration to show: the cell says so instead of trapping.
        #expect(sessions.first { $0.id == "20261124_120100" }?.durationSeconds == nil)
        #expect(LibraryFormat.duration(1e300) == "–" && LibraryFormat.duration(.nan) == "–")
    }

    /// Names and warnings in a manifest are anyone's to write: an escape sequence in
    /// one must reach the terminal as text, not as a command to it.
    @Test func controlCharactersFromAManifestAreNotPrinted() throws {
        let root = try SessionFixtures.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manifest = SessionFixtures.manifest(id: "20261124_120000")
            .replacingOccurrences(of: "\"name\": \"host-pi\"", with: "\"name\": \"host\\u001b[2J\\u001b]0;owned\\u0007\"")
            .replacingOccurrences(of: "\"warnings\": []", with: "\"warnings\": [\"fine\\rforged line\"]")
        try SessionFixtures.session("20261124_120000", in: root, files: ["manifest.json": manifest])
        let session = try #require(SessionLibrary(directories: [root]).sessions().first)
        let text = (SessionReport.lines(session) + SessionListing.lines([session])).joined(separator: "\n")
        #expect(text.contains("host?[2J?]0;owned?") && text.contains("fine?forged line"), "\(text)")
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\r" })
    }

    @Test func startSkipsAnUnfinishedSessionWhoseRecordIsDamaged() throws {
        let root = try SessionFixtures.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let corrupt = try SessionFixtures.session("20261124_120000", in: root, files: ["session.json": "{\"sessionID\": \"2026"])
        let absurd = try SessionFixtures.session("20261124_120100", in: root,
                                                 files: ["session.json": SessionFixtures.record(id: "20261124_120100", stop: "-9223372036854775807")])
        let climbing = try SessionFixtures.session("20261124_120200", in: root, files: ["session.json": SessionFixtures.record(id: "../../x")])
        let good = try SessionFixtures.session("20261124_120300", in: root, files: ["session.json": SessionFixtures.record(id: "20261124_120300")])
        var warnings: [String] = []
        #expect(TakeResumer.unfinished(in: root) { warnings.append($0) } == [good])
        #expect(warnings.count == 3, "\(warnings)")
        for (folder, warning) in zip([corrupt, absurd, climbing], warnings) {
            #expect(warning.contains(folder) && warning.contains("damaged"), "\(warning)")
        }
        #expect(warnings[1].contains("stop"), "\(warnings[1])")
        #expect(warnings[2].contains("session ID"), "\(warnings[2])")
    }

    /// An unfinished session reached through a link in the output folder would be
    /// resumed, and written, wherever the link points.
    @Test func startDoesNotResumeThroughASymbolicLink() throws {
        let root = try SessionFixtures.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let elsewhere = try SessionFixtures.session("20261124_120000", in: root + "/elsewhere",
                                                    files: ["session.json": SessionFixtures.record(id: "20261124_120000")])
        let out = root + "/DualCam"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/20261124_120000", withDestinationPath: elsewhere)
        var warnings: [String] = []
        #expect(TakeResumer.unfinished(in: out) { warnings.append($0) }.isEmpty)
        #expect(warnings.count == 1 && warnings[0].contains("symbolic link"), "\(warnings)")
    }

    @Test func deleteRefusesAFolderOutsideTheLibrary() throws {
        let root = try SessionFixtures.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let out = root + "/DualCam"
        let other = try SessionFixtures.session("otherproj", in: root, files: ["notes.txt": "precious"])
        let library = SessionLibrary(directories: [out])
        try SessionFixtures.session("20261124_120000", in: out, files: ["session.json": SessionFixtures.record(id: "20261124_120000")])

        // Named by a path that climbs out of the library.
        let climbing = try library.resolve(out + "/../otherproj")
        #expect(throws: CoordinatorError.self) { try library.delete(climbing) }
        do {
            try library.delete(climbing)
        } catch {
            #expect("\(error)".contains("not deleting") && "\(error)".contains("inside \(out)"), "\(error)")
        }
        // Reached through a link inside the library: neither the target nor a lock in it.
        try FileManager.default.createSymbolicLink(atPath: out + "/20261124_130000", withDestinationPath: other)
        let linked = try library.resolve("20261124_130000")
        do {
            try library.delete(linked)
            Issue.record("a session reached through a symbolic link was deleted")
        } catch {
            #expect("\(error)".contains("symbolic link"), "\(error)")
        }
        #expect(FileManager.default.fileExists(atPath: other + "/notes.txt"))
        #expect(!FileManager.default.fileExists(atPath: other + "/.lock"))

        // A session really inside is deleted as before.
        try library.delete(try library.resolve("20261124_120000"))
        #expect(!FileManager.default.fileExists(atPath: out + "/20261124_120000"))
    }

    /// Rebuilding rewrites the session's files by name: a file planted as a link to
    /// another must stop it before anything is written, naming the link.
    @Test func rebuildRefusesASessionHoldingSymbolicLinks() async throws {
        let root = try SessionFixtures.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let out = root + "/DualCam"
        let session = try SessionFixtures.session("20261124_120000", in: out,
                                                  files: ["session.json": SessionFixtures.record(id: "20261124_120000", stop: "3000000000"),
                                                          "manifest.json": "{\"sessionID\": "])
        let target = root + "/precious.txt"
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: session + "/DualCam_Host_20261124_120000.mp4", withDestinationPath: target)
        let library = SessionLibrary(directories: [out])
        do {
            _ = try await library.rebuildManifest(try library.resolve("20261124_120000"), logger: Logger(label: "test")) { _ in }
            Issue.record("a session holding a symbolic link was rebuilt")
        } catch {
            #expect("\(error)".contains("symbolic link") && "\(error)".contains("DualCam_Host_20261124_120000.mp4"), "\(error)")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
        #expect(FileManager.default.fileExists(atPath: session + "/manifest.json"), "the damaged manifest was moved before refusing")
    }
}
