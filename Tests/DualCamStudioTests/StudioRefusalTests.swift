import Foundation
import Testing
@testable import DualCamStudio

/// The smaller holes of issue 36 (item 10): every refusal is a JSON sentence, guesses of
/// the token are slowed down and logged once per burst, and the library never leads out
/// of its folder.
@Suite(.serialized) struct StudioRefusalTests {
    func json(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    @Test func aBodyOverSixteenKiBIsRefusedWithAJSONSentence() async throws {
        let s = try await StudioHarness.start()
        defer { s.stop() }
        let h = ["X-DualCam-CSRF": s.studio.access.csrf, "Content-Type": "application/json"]
        let big = #"{"command":"layout","layout":""# + String(repeating: "x", count: 20_000) + #""}"#
        let refused = try await StudioServerTests().fetch(s.base + "/api/command", method: "POST", headers: h, body: big)
        #expect(refused.status == 413)
        let error = try #require(json(refused.body)?["error"] as? String, "\(refused.body)")
        #expect(error.contains("16 KiB"), "\(error)")
    }

    @Test func wrongTokensAreSlowedDownAndLoggedOncePerBurst() async throws {
        let limits = StudioLimits(guessBurst: 5, guessIntervalSeconds: 2)
        let s = try await StudioHarness.start(host: "0.0.0.0", limits: limits)
        defer { s.stop() }
        let http = StudioServerTests()
        let session = try await s.sessionCookie()
        var statuses: [Int] = []
        let started = ContinuousClock.now
        for i in 0..<60 {
            // Half guess the one-time token, half a session cookie: both are counted.
            let answer = if i % 2 == 0 {
                try await http.fetch(s.base + "/?token=guess\(i)")
            } else {
                try await http.fetch(s.base + "/api/state", headers: ["Cookie": "dualcam_session=guess\(i)"])
            }
            statuses.append(answer.status)
            if answer.status == 429 { #expect(json(answer.body)?["error"] as? String != nil, "\(answer.body)") }
        }
        let took = ContinuousClock.now - started
        let refused = statuses.filter { $0 == 429 }.count
        print("studio guesses: \(refused) of 60 wrong tokens refused unchecked (429) in \(took)")
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 }, "\(statuses)")
        // One try a second gets through after the burst.
        let checked = statuses.count - refused
        #expect(checked <= 5 + Int((Double(took.components.seconds) + 1) / limits.guessIntervalSeconds) + 1, "\(statuses)")
        let logged = s.log.all.filter { $0.contains("wrong tokens or session cookies from 127.0.0.1") }
        #expect(logged.count == 1, "\(s.log.all)")

        // A browser at the same address that holds its session is served all the same.
        #expect(try await http.fetch(s.base + "/api/state", headers: ["Cookie": session]).status == 200)
        // The right token is not even checked while the address is refused… Asked just
        // after a wrong guess was let through (a fresh interval), so that a loaded machine
        // that took longer than an interval over the loop above cannot open the door.
        let token = try #require(s.studio.access.token)
        var spent = 0
        while try await http.fetch(s.base + "/?token=spent\(spent)").status == 429 {
            spent += 1
            try await Task.sleep(for: .milliseconds(100))
            try #require(spent < 100, "no guess was let through in 10 s")
        }
        #expect(try await http.fetch(s.base + "/?token=\(token)").status == 429)
        // …and works once a try is allowed again.
        try await Task.sleep(for: .milliseconds(Int(limits.guessIntervalSeconds * 1000) + 200))
        #expect(try await http.fetch(s.base + "/?token=\(token)").status == 303)
    }

    @Test func anExportOfADamagedSessionAnswersAJSONSentence() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.remove() }
        try fixture.session("20261124_120000")
        let s = try await StudioHarness.start(outputDirectory: fixture.library)
        defer { s.stop() }
        let h = ["X-DualCam-CSRF": s.studio.access.csrf, "Content-Type": "application/json"]
        let answer = try await StudioServerTests().fetch(s.base + "/api/library/20261124_120000/export", method: "POST",
                                                         headers: h, body: #"{"format":"fcpxml"}"#)
        #expect(answer.status == 422, "\(answer.status) \(answer.body)")
        let error = try #require(json(answer.body)?["error"] as? String, "an empty answer: \(answer.status)")
        #expect(error.contains("could not be exported") && error.contains("show 20261124_120000"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: fixture.library + "/20261124_120000/DualCam_20261124_120000.fcpxml"))
    }

    @Test func aSessionFolderLinkedFromOutsideIsNeitherListedNorServed() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.remove() }
        try fixture.session("20261124_120000")
        let outside = try fixture.session("20261124_130000", in: fixture.root, media: "SECRET outside the library")
        try FileManager.default.createSymbolicLink(atPath: fixture.library + "/20261124_130000", withDestinationPath: outside)
        let s = try await StudioHarness.start(outputDirectory: fixture.library)
        defer { s.stop() }
        let http = StudioServerTests()
        let listing = try await http.fetch(s.base + "/api/library")
        let ids = (json(listing.body)?["sessions"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == ["20261124_120000"], "\(listing.body)")
        #expect(try await http.fetch(s.base + "/api/library/20261124_130000").status == 404)
        let file = try await http.fetch(s.base + "/library/20261124_130000/" + LibraryFixture.hostFile)
        #expect(file.status == 404)
        #expect(!file.body.contains("SECRET"))
        // The real session is still served.
        let real = try await http.fetch(s.base + "/library/20261124_120000/" + LibraryFixture.hostFile)
        #expect(real.status == 200 && real.body == "not an mp4")
    }
}
