import DualCamCore
import Foundation
import Testing
@testable import DualCamStudio

/// A take's warnings are shown where the person looks (issue 36, item 2): a take whose
/// host dropped 42 of 555 frames ended "Done. The files are ready." and its library card
/// said "complete"; only the terminal and `show` told.
@Suite struct StudioWarningsTests {
    static let drop = DropReport.warning(name: "host-pi", dropped: 42, captured: 513, width: 1280, height: 720,
                                         rate: FrameRate(parsing: "30")!)!

    @Test func theLibraryCardCarriesEveryWarningOfTheManifest() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.remove() }
        try fixture.session("20261124_120000", warnings: [Self.drop, "guest-pi: segments [3] never arrived; its file has a gap there"],
                            dropped: 42)
        try fixture.session("20261124_110000")
        let s = try await StudioHarness.start(outputDirectory: fixture.library)
        defer { s.stop() }
        let listing = try await StudioServerTests().fetch(s.base + "/api/library")
        let sessions = try #require((try JSONSerialization.jsonObject(with: Data(listing.body.utf8)) as? [String: Any])?["sessions"]
            as? [[String: Any]])
        let warned = try #require(sessions.first { $0["id"] as? String == "20261124_120000" })
        let warnings = try #require(warned["warnings"] as? [String], "\(warned)")
        #expect(warnings.count == 2 && warnings[0].contains("dropped 42 of 555 frames (8 %)"), "\(warnings)")
        let clean = try #require(sessions.first { $0["id"] as? String == "20261124_110000" })
        #expect(clean["warnings"] as? [String] == [])
        let card = try await StudioServerTests().fetch(s.base + "/api/library/20261124_120000")
        #expect(card.body.contains("dropped 42 of 555"), "\(card.body)")
    }

    @Test func aFinishedTakeShowsTheWarningsItsManifestGained() throws {
        let fixture = try LibraryFixture()
        defer { fixture.remove() }
        let folder = try fixture.session("20261124_120000", warnings: ["a segment was late", Self.drop], dropped: 42)
        let manifest = TakeManifest()
        let merged = manifest.warnings(of: ["a segment was late"], manifest: folder + "/manifest.json")
        #expect(merged == ["a segment was late", Self.drop])
        // Its length, for a page opened after the take (which read "Done 00:00").
        #expect(manifest.facts(folder + "/manifest.json").durationSeconds == 18.5)
        // No manifest (yet): what the take knew.
        #expect(TakeManifest().warnings(of: ["x"], manifest: fixture.root + "/none/manifest.json") == ["x"])
    }
}
