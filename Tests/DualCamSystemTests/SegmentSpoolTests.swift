@testable import DualCamAgent
import Foundation
import Testing

/// The spool's promise: a segment leaves the agent's disk only after the coordinator said
/// it holds it durably, and what it has not acknowledged is offered again.
struct SegmentSpoolTests {
    static func spoolWithSegments(_ count: Int) throws -> (SegmentSpool, [SpooledSegment]) {
        let spool = SegmentSpool(root: NSTemporaryDirectory() + "dualcam-spool-\(UUID().uuidString)")
        try spool.prepare(session: "s1")
        var segments: [SpooledSegment] = []
        for index in 0..<count {
            let path = spool.segmentPath(session: "s1", index: index)
            try Data(repeating: UInt8(index), count: 188).write(to: URL(fileURLWithPath: path))
            let segment = SpooledSegment(sessionID: "s1", index: index, path: path, byteCount: 188, frameCount: 60,
                                         firstPtsNanoseconds: Int64(index) * 2_000_000_000, durationNanoseconds: 2_000_000_000)
            try spool.record(segment)
            segments.append(segment)
        }
        return (spool, segments)
    }

    @Test func onlyAnAcknowledgedSegmentIsPruned() throws {
        let (spool, segments) = try Self.spoolWithSegments(3)
        defer { try? FileManager.default.removeItem(atPath: spool.root) }
        #expect(spool.unacknowledgedSessions() == ["s1"])
        try spool.acknowledge(session: "s1", index: 1, prune: true)
        #expect(!FileManager.default.fileExists(atPath: segments[1].path))
        #expect(FileManager.default.fileExists(atPath: segments[0].path) && FileManager.default.fileExists(atPath: segments[2].path))
        #expect(spool.acknowledged(session: "s1") == [1])
        // The manifest still lists all three: the coordinator may ask which it has.
        #expect(spool.segments(session: "s1") == segments)
        #expect(spool.unacknowledgedSessions() == ["s1"])
    }

    @Test func keepingAcknowledgedSegmentsDeletesNothing() throws {
        let (spool, segments) = try Self.spoolWithSegments(2)
        defer { try? FileManager.default.removeItem(atPath: spool.root) }
        try spool.acknowledge(session: "s1", index: 0, prune: false)
        try spool.acknowledge(session: "s1", index: 1, prune: false)
        #expect(segments.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        // Everything held: nothing to offer after a restart.
        #expect(spool.unacknowledgedSessions().isEmpty)
    }

    @Test func anAckForASegmentTheSpoolNeverListedIsRefusedAndDeletesNothing() throws {
        let (spool, segments) = try Self.spoolWithSegments(2)
        defer { try? FileManager.default.removeItem(atPath: spool.root) }
        // A segment file being written has no manifest line yet: it must survive any ack.
        let writing = spool.segmentPath(session: "s1", index: 2)
        try Data(count: 188).write(to: URL(fileURLWithPath: writing))
        #expect(throws: SpoolError.self) { try spool.acknowledge(session: "s1", index: 2, prune: true) }
        #expect(throws: SpoolError.self) { try spool.acknowledge(session: "other", index: 0, prune: true) }
        #expect(FileManager.default.fileExists(atPath: writing))
        #expect(segments.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        #expect(spool.acknowledged(session: "s1").isEmpty)
    }

    /// A restarted agent reads the same folder: what was not acknowledged before the
    /// restart is still owed, whatever was pruned.
    @Test func aRestartedAgentStillOwesWhatWasNotAcknowledged() throws {
        let (spool, _) = try Self.spoolWithSegments(3)
        defer { try? FileManager.default.removeItem(atPath: spool.root) }
        try spool.acknowledge(session: "s1", index: 0, prune: true)
        let reopened = SegmentSpool(root: spool.root)
        #expect(reopened.unacknowledgedSessions() == ["s1"])
        let owed = reopened.segments(session: "s1").filter { !reopened.acknowledged(session: "s1").contains($0.index) }
        #expect(owed.map(\.index) == [1, 2])
    }
}
