import DualCamMedia
import DualCamProtocol
import Foundation

/// A finished segment on the agent's disk, waiting for the coordinator's durable ack.
public struct SpooledSegment: Sendable, Codable, Equatable {
    public var sessionID: String
    public var index: Int
    public var path: String
    public var byteCount: Int
    public var frameCount: Int
    public var firstPtsNanoseconds: Int64
    public var durationNanoseconds: Int64
    /// Hex SHA-256 of the file, taken once it was complete (absent in older manifests).
    public var sha256: String?

    /// `sha256` as bytes; nil when absent or malformed.
    var digest: Data? {
        guard let hex = sha256, hex.count == 64 else { return nil }
        var bytes = Data(capacity: 32)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// The agent's spool folder: one sub-folder per session holding its segments and a
/// manifest (one JSON line per finished segment, appended after the segment is fsynced,
/// so a segment listed there is always complete).
public struct SegmentSpool: Sendable {
    public let root: String

    public init(root: String) { self.root = root }

    public func sessionDirectory(_ sessionID: String) -> String { root + "/" + sessionID }

    public func segmentPath(session: String, index: Int) -> String {
        sessionDirectory(session) + "/" + String(format: "seg-%06d.ts", index)
    }

    /// A session's folder, refused for an ID that is not a safe name: IDs come from the
    /// coordinator, and the protocol machine checks them already; this keeps any other
    /// path to the spool from becoming a way out of it.
    func checkedDirectory(_ sessionID: String) throws -> String {
        if let problem = WireIdentifier.problem(sessionID, what: "session ID") { throw SpoolError(problem) }
        return sessionDirectory(sessionID)
    }

    public func prepare(session: String) throws {
        try FileManager.default.createDirectory(atPath: checkedDirectory(session), withIntermediateDirectories: true)
    }

    /// Removes a session's folder that holds no segment (a take cancelled before T0), so
    /// that cancelled takes leave nothing on the node. Returns whether it went.
    @discardableResult
    public func removeIfEmpty(session: String) -> Bool {
        guard let directory = try? checkedDirectory(session), segments(session: session).isEmpty,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory),
              !names.contains(where: { $0.hasSuffix(".ts") }) else { return false }
        return (try? FileManager.default.removeItem(atPath: directory)) != nil
    }

    /// Records a finished segment in the session manifest and fsyncs the manifest.
    public func record(_ segment: SpooledSegment) throws {
        let path = try checkedDirectory(segment.sessionID) + "/manifest.jsonl"
        do {
            try DurableLines.append(try JSONEncoder().encode(segment), to: path)
        } catch let error as DurableLines.WriteError {
            throw SpoolError(error.description)
        }
    }

    /// Notes that the coordinator holds the segment durably (one line per segment in
    /// `acknowledged.jsonl`); with `prune`, the file goes then. Only an acknowledged
    /// segment is ever deleted.
    public func acknowledge(session: String, index: Int, prune: Bool) throws {
        guard let segment = segments(session: session).first(where: { $0.index == index }) else {
            throw SpoolError("segment \(index) of session \(session) is not in the spool at \(root)")
        }
        try appendIndexLine(session: session, file: "acknowledged.jsonl", index: index)
        if prune { try? FileManager.default.removeItem(atPath: segment.path) }
    }

    /// Indices the coordinator acknowledged as durable.
    public func acknowledged(session: String) -> Set<Int> {
        indexLines(session: session, file: "acknowledged.jsonl")
    }

    private func indexLines(session: String, file: String) -> Set<Int> {
        guard let directory = try? checkedDirectory(session) else { return [] }
        guard let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8) else { return [] }
        struct Line: Decodable { var index: Int }
        return Set(text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)).index })
    }

    /// Sessions holding segments the coordinator has not acknowledged, for HelloAck; a
    /// segment known lost is owed no more.
    public func unacknowledgedSessions() -> [String] {
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return sessions.sorted().filter { session in
            guard WireIdentifier.isValid(session) else { return false }
            let done = acknowledged(session: session).union(lost(session: session))
            return segments(session: session).contains { !done.contains($0.index) }
        }
    }

    /// What is wrong with a listed segment's file now, or nil when it is whole: a bad SD
    /// card or a careless hand can remove or cut a file after it was written and listed.
    public func problem(with segment: SpooledSegment) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: segment.path) else {
            return "is gone from the spool"
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? -1
        guard size == segment.byteCount else {
            return "is damaged in the spool (\(size) bytes where \(segment.byteCount) were written)"
        }
        guard let expected = segment.digest else { return nil }
        guard let digest = try? SegmentSink.digest(ofFileAt: segment.path), Data(digest) == expected else {
            return "is damaged in the spool (its bytes no longer match the checksum taken when it was written)"
        }
        return nil
    }

    /// Notes that a segment cannot be delivered (`lost.jsonl`), so that the session is no
    /// longer reported as owing it.
    public func markLost(session: String, index: Int) throws {
        try appendIndexLine(session: session, file: "lost.jsonl", index: index)
    }

    /// One durable `{"index":N}` line in one of a session's index lists.
    private func appendIndexLine(session: String, file: String, index: Int) throws {
        let path = try checkedDirectory(session) + "/" + file
        do {
            try DurableLines.append(Data("{\"index\":\(index)}".utf8), to: path)
        } catch {
            throw SpoolError(error.description)
        }
    }

    /// Indices found missing or damaged.
    public func lost(session: String) -> Set<Int> {
        indexLines(session: session, file: "lost.jsonl")
    }

    /// Segments listed in a session's manifest (all complete on disk).
    public func segments(session: String) -> [SpooledSegment] {
        guard let directory = try? checkedDirectory(session) else { return [] }
        let path = directory + "/manifest.jsonl"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(SpooledSegment.self, from: Data($0.utf8)) }
    }
}

public struct SpoolError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
