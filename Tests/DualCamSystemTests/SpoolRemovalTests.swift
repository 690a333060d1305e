@testable import DualCamAgent
import Foundation
import Testing

/// Forgetting a session (PROTOCOL.md §17) removes its spool folder and nothing outside
/// the spool, whatever links someone left in it.
struct SpoolRemovalTests {
    let fm = FileManager.default

    @Test func everyFileGoesAndTheBytesAreCounted() throws {
        let (spool, segments) = try SegmentSpoolTests.spoolWithSegments(3)
        defer { try? fm.removeItem(atPath: spool.root) }
        try spool.acknowledge(session: "s1", index: 0, prune: false)
        try Data(count: 50).write(to: URL(fileURLWithPath: spool.sessionDirectory("s1") + "/seg-000003.ts.part"))
        let manifest = try #require(try fm.attributesOfItem(atPath: spool.sessionDirectory("s1") + "/manifest.jsonl")[.size] as? Int)
        let acknowledged = try #require(try fm.attributesOfItem(atPath: spool.sessionDirectory("s1") + "/acknowledged.jsonl")[.size] as? Int)
        let freed = try spool.remove(session: "s1")
        #expect(freed == Int64(3 * 188 + 50 + manifest + acknowledged))
        #expect(!fm.fileExists(atPath: spool.sessionDirectory("s1")))
        #expect(segments.allSatisfy { !fm.fileExists(atPath: $0.path) })
        #expect(spool.unacknowledgedSessions().isEmpty)
        #expect(try spool.remove(session: "s1") == nil, "a session held no more is nothing to remove")
    }

    @Test func linksInsideAreRemovedNeverFollowed() throws {
        let (spool, _) = try SegmentSpoolTests.spoolWithSegments(1)
        let outside = NSTemporaryDirectory() + "dualcam-outside-\(UUID().uuidString)"
        defer { try? fm.removeItem(atPath: spool.root); try? fm.removeItem(atPath: outside) }
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data(count: 1000).write(to: URL(fileURLWithPath: outside + "/precious"))
        let session = spool.sessionDirectory("s1")
        try fm.createSymbolicLink(atPath: session + "/file-link", withDestinationPath: outside + "/precious")
        try fm.createSymbolicLink(atPath: session + "/folder-link", withDestinationPath: outside)
        let freed = try #require(try spool.remove(session: "s1"))
        #expect(freed < 1000, "the linked file's bytes are not the spool's")
        #expect(!fm.fileExists(atPath: session))
        #expect(fm.fileExists(atPath: outside + "/precious"))
    }

    @Test func aSessionFolderThatIsALinkIsRefused() throws {
        let spool = SegmentSpool(root: NSTemporaryDirectory() + "dualcam-spool-\(UUID().uuidString)")
        let outside = NSTemporaryDirectory() + "dualcam-outside-\(UUID().uuidString)"
        defer { try? fm.removeItem(atPath: spool.root); try? fm.removeItem(atPath: outside) }
        try fm.createDirectory(atPath: spool.root, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data(count: 10).write(to: URL(fileURLWithPath: outside + "/precious"))
        try fm.createSymbolicLink(atPath: spool.sessionDirectory("s1"), withDestinationPath: outside)
        #expect(throws: SpoolError.self) { try spool.remove(session: "s1") }
        #expect(fm.fileExists(atPath: outside + "/precious"))
    }

    @Test(arguments: ["..", "../outside", "a/b", ".hidden", ""])
    func aNameThatIsNotASessionIsRefused(id: String) throws {
        let (spool, _) = try SegmentSpoolTests.spoolWithSegments(1)
        defer { try? fm.removeItem(atPath: spool.root) }
        #expect(throws: SpoolError.self) { try spool.remove(session: id) }
        #expect(fm.fileExists(atPath: spool.sessionDirectory("s1")))
    }
}
