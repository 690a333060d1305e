@testable import DualCamCoordinator
import Foundation
import Testing

/// Segments a resumed take holds are checked against the checksum they arrived with
/// before they go into a file: one corrupted on the coordinator's disk after transfer
/// went into the finished files unnoticed.
@Suite struct SegmentReceiverTests {
    @Test func aHeldSegmentChangedOnDiskIsSetAsideAndNotHeld() throws {
        let directory = NSTemporaryDirectory() + "dualcam-receiver-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = Data("segment zero".utf8), bad = Data("segment one".utf8)
        try good.write(to: URL(fileURLWithPath: directory + "/seg-000000.ts"))
        try bad.write(to: URL(fileURLWithPath: directory + "/seg-000001.ts"))
        let digest0 = try #require(SegmentReceiver.digest(ofFile: directory + "/seg-000000.ts"))
        let lines = [
            #"{"index":0,"firstPtsNs":0,"durationNs":2000000000,"frameCount":60,"sha256":"\#(digest0)"}"#,
            // What segment 1 held when it arrived: not what is on disk now.
            #"{"index":1,"firstPtsNs":2000000000,"durationNs":2000000000,"frameCount":60,"sha256":"\#(String(repeating: "ab", count: 32))"}"#,
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/index.jsonl"))
        let receiver = try SegmentReceiver(directory: directory)
        #expect(receiver.received.keys.sorted() == [0])
        #expect(receiver.damaged == [1])
        #expect(FileManager.default.fileExists(atPath: directory + "/seg-000001.ts.damaged"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/seg-000001.ts"))
    }

    /// An index written before checksums were kept cannot be checked: its segments stay held.
    @Test func segmentsOfAnOlderIndexStayHeld() throws {
        let directory = NSTemporaryDirectory() + "dualcam-receiver-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: directory + "/seg-000000.ts"))
        try Data(Array(#"{"index":0,"firstPtsNs":0,"durationNs":2000000000}"#.utf8) + [10]).write(to: URL(fileURLWithPath: directory + "/index.jsonl"))
        let receiver = try SegmentReceiver(directory: directory)
        #expect(receiver.received.keys.sorted() == [0] && receiver.damaged.isEmpty)
    }
}
