import DualCamCoordinator
import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import DualCamStudio

/// One viewer's messages are bounded (issue 36, item 7): 20,000 preview toggles from one
/// authenticated WebSocket once stalled the studio for 94 s and lost both agents of the
/// take. The flood is told why and closed; the studio answers meanwhile.
@Suite(.serialized) struct StudioViewerFloodTests {
    /// What the flooding client heard, read on a thread of its own from the start, so
    /// nothing is lost in the kernel when the server closes.
    final class Heard: Sendable {
        let texts = NIOLockedValueBox<[String]>([])
        let closed = NIOLockedValueBox<Bool>(false)
    }

    @Test func aFloodingViewerIsToldAndClosedWhileTheStudioAnswers() async throws {
        let s = try await StudioHarness.start()
        defer { s.stop() }
        let socket = try RawSocket(port: s.port)
        #expect(socket.send(WebSocketFrames.upgrade(port: s.port)))
        var pending = [UInt8]()
        while pending.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            let more = try #require(socket.receive(timeout: 5))
            try #require(!more.isEmpty, "the upgrade was refused")
            pending += more
        }
        let head = String(decoding: pending, as: UTF8.self)
        try #require(head.hasPrefix("HTTP/1.1 101"), "\(head)")
        pending.removeFirst(pending.firstRange(of: Array("\r\n\r\n".utf8))!.upperBound)

        let heard = Heard()
        let initial = pending
        let reader = Thread {
            var data = initial
            while let more = socket.receive(timeout: 10) {
                data += more
                for frame in WebSocketFrames.parse(&data) {
                    if frame.opcode == 1 { heard.texts.withLockedValue { $0.append(String(decoding: frame.payload, as: UTF8.self)) } }
                    if frame.opcode == 8 { heard.closed.withLockedValue { $0 = true } }
                }
                if more.isEmpty { heard.closed.withLockedValue { $0 = true }; break }
            }
        }
        reader.start()

        let messages = 20_000
        let flooding = Task.detached { () -> (sent: Int, seconds: Double) in
            let started = Date()
            var sent = 0
            for i in 0..<messages {
                let format = i % 2 == 0 ? "h264" : "none"
                guard socket.send(WebSocketFrames.text(#"{"type":"preview","format":"\#(format)"}"#)) else { break }
                sent += 1
            }
            return (sent, Date().timeIntervalSince(started))
        }
        // The studio's HTTP side while the flood goes on, and a little after.
        var slowest = Duration.zero
        let watching = ContinuousClock.now
        while ContinuousClock.now - watching < .seconds(2) {
            let asked = ContinuousClock.now
            let state = try await StudioServerTests().fetch(s.base + "/api/state")
            #expect(state.status == 200)
            slowest = max(slowest, ContinuousClock.now - asked)
            try await Task.sleep(for: .milliseconds(20))
        }
        let flood = await flooding.value
        #expect(await eventually(within: 5) { heard.closed.withLockedValue { $0 } }, "the flooding viewer was not closed")
        let notices = heard.texts.withLockedValue { $0 }.filter { $0.contains(#""type":"notice""#) }
        #expect(notices.contains { $0.contains("closed this page's connection") && $0.contains("reload") }, "\(notices)")
        #expect(await eventually { !s.rig.previews.isWatched }, "the closed viewer still watches")
        print("studio flood: \(flood.sent) of \(messages) preview toggles written in \(String(format: "%.2f", flood.seconds)) s "
            + "before the close; GET /api/state took at most \(slowest) meanwhile")
        #expect(slowest < .seconds(1), "the studio stalled \(slowest) during one viewer's flood")
        #expect(s.log.all.filter { $0.contains("closed the WebSocket") }.count == 1, "\(s.log.all)")
    }

    /// Preview wishes that come faster than one a quarter second replace each other: the
    /// agents are asked for a new preview at most that often, whatever a page sends.
    @Test func previewWishesAreCoalescedToTheLatest() async throws {
        let hub = PreviewHub()
        let choice = PreviewChoice()
        let started = NIOLockedValueBox<Int>(0)
        let applying = Task {
            try await choice.apply(in: hub) { pictures in
                started.withLockedValue { $0 += 1 }
                for await _ in pictures {}
            }
        }
        choice.want(.h264)
        #expect(await eventually { hub.isWatched })
        let begun = ContinuousClock.now
        for i in 0..<20_000 { choice.want(i % 2 == 0 ? .jpeg : .h264) }
        choice.want(nil)
        try await Task.sleep(for: .milliseconds(600))
        #expect(!hub.isWatched, "the last wish, none, was not applied")
        choice.finish()
        _ = try? await applying.value
        let seconds = Double((ContinuousClock.now - begun).components.seconds) + 1
        let watches = started.withLockedValue { $0 }
        print("studio flood: 20,001 preview wishes started \(watches) watches")
        #expect(watches >= 1 && Double(watches) <= seconds / 0.25 + 2, "\(watches) watches in \(seconds) s")
    }
}
