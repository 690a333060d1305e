import Crypto
import DualCamProtocol
import DualCamMedia
import Foundation

/// Receives one agent's segments into the session folder. A segment is written to a
/// `.part` file, fsynced, checked against its SHA-256 and only then renamed and
/// acknowledged as durable: an ack is a promise that the agent may delete its copy.
final class SegmentReceiver {
    let directory: String
    private var current: (offer: Dualcam_V1_SegmentOffer, handle: FileHandle, hasher: SHA256, received: UInt64, path: String)?
    /// A segment offered again that is held already: its data is let through unwritten.
    private var skipping: UInt32?
    private var acknowledgedBytes: UInt64 = 0
    private(set) var received: [Int: String] = [:]
    /// Presentation span of each held segment, from `index.jsonl`, which a resumed
    /// session needs to schedule them into the composite.
    private(set) var spans: [Int: (first: Int64, duration: Int64)] = [:]
    /// Frames in each held segment, as its offer said (absent from older index lines).
    private(set) var frames: [Int: Int] = [:]
    /// Segments found on this disk with another checksum than the one they arrived with
    /// (a resumed session): set aside as `.damaged`, not held, so they are asked for again.
    private(set) var damaged: [Int] = []

    private struct IndexLine: Codable {
        var index: Int
        var firstPtsNs: Int64
        var durationNs: Int64
        var frameCount: Int?
        /// Hex SHA-256 of the segment as it was verified on arrival (absent from older lines).
        var sha256: String?
    }

    /// Frames in the segments held, which is what the camera's file holds; nil when a
    /// held segment's count is unknown (an index written before counts were kept).
    var framesHeld: Int? {
        var total = 0
        for index in received.keys {
            guard let count = frames[index] else { return nil }
            total += count
        }
        return total
    }
    private var indexPath: String { directory + "/index.jsonl" }

    /// Takes over the segments already in `directory` (a resumed session); a `.part`
    /// file is an interrupted transfer and is fetched again.
    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            guard name.hasPrefix("seg-"), name.hasSuffix(".ts"), let index = Int(name.dropFirst(4).dropLast(3)) else { continue }
            received[index] = directory + "/" + name
        }
        let lines = (try? String(contentsOfFile: indexPath, encoding: .utf8)) ?? ""
        var digests: [Int: String] = [:]
        for line in lines.split(separator: "\n") {
            guard let entry = try? JSONDecoder().decode(IndexLine.self, from: Data(line.utf8)) else { continue }
            spans[entry.index] = (entry.firstPtsNs, entry.durationNs)
            if let count = entry.frameCount { frames[entry.index] = count }
            digests[entry.index] = entry.sha256
        }
        // What was verified on arrival is verified again before it goes into any file: a
        // disk that lost a sector since must not put broken pictures in a finished take.
        for (index, path) in received.sorted(by: { $0.key < $1.key }) {
            guard let expected = digests[index], Self.digest(ofFile: path) != expected else { continue }
            received[index] = nil
            damaged.append(index)
            try? FileManager.default.removeItem(atPath: path + ".damaged")
            try? FileManager.default.moveItem(atPath: path, toPath: path + ".damaged")
        }
    }

    /// Hex SHA-256 of a file, read in blocks; nil when it cannot be read.
    static func digest(ofFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            // Foundation on Linux answers nil, not empty data, at the end of the file.
            while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
                hasher.update(data: block)
            }
        } catch {
            return nil
        }
        return Self.hex(Data(hasher.finalize()))
    }

    static func hex(_ bytes: Data) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// One camera's segments in a session folder: `segments/<camera>`.
    convenience init(sessionDirectory: String, camera: String) throws {
        try self.init(directory: sessionDirectory + "/segments/" + camera.lowercased())
    }

    /// Ends a transfer cut off with its connection; its `.part` file is rewritten when
    /// the segment is offered again.
    func abandonTransfer() {
        try? current?.handle.close()
        current = nil
        skipping = nil
    }

    func path(index: Int) -> String { directory + "/" + String(format: "seg-%06d.ts", index) }

    /// Starts receiving an offered segment; false when it is held already (the caller
    /// acknowledges it as durable at once, PROTOCOL.md §8.5).
    func offer(_ offer: Dualcam_V1_SegmentOffer) throws -> Bool {
        try OutputDiskFull.judging(directory) { try start(offer) }
    }

    private func start(_ offer: Dualcam_V1_SegmentOffer) throws -> Bool {
        abandonTransfer()
        if received[Int(offer.index)] != nil {
            skipping = offer.index
            return false
        }
        let part = path(index: Int(offer.index)) + ".part"
        guard FileManager.default.createFile(atPath: part, contents: nil),
              let handle = FileHandle(forWritingAtPath: part) else {
            throw CoordinatorError("cannot write \(part)")
        }
        current = (offer, handle, SHA256(), 0, part)
        acknowledgedBytes = 0
        return true
    }

    /// A progress ack is due once `every` bytes were written since the last one
    /// (PROTOCOL.md §8.2: a quarter of the upload window); returns the segment and the
    /// bytes written so far, and counts them as acknowledged.
    func progressDue(every: UInt64) -> (index: UInt32, receivedBytes: UInt64)? {
        guard let c = current, c.received - acknowledgedBytes >= every else { return nil }
        acknowledgedBytes = c.received
        return (c.offer.index, c.received)
    }

    /// Appends a chunk; returns the finished segment's path when the last chunk is in
    /// and verified.
    func data(_ chunk: Dualcam_V1_SegmentData) throws -> (index: Int, path: String, offer: Dualcam_V1_SegmentOffer)? {
        try OutputDiskFull.judging(directory) { try append(chunk) }
    }

    private func append(_ chunk: Dualcam_V1_SegmentData) throws -> (index: Int, path: String, offer: Dualcam_V1_SegmentOffer)? {
        if let skipping, skipping == chunk.index {
            if chunk.last { self.skipping = nil }
            return nil
        }
        guard var c = current, c.offer.index == chunk.index, chunk.offset == c.received else {
            throw CoordinatorError("segment data out of order (segment \(chunk.index), offset \(chunk.offset))")
        }
        try c.handle.write(contentsOf: chunk.data)
        c.hasher.update(data: chunk.data)
        c.received += UInt64(chunk.data.count)
        current = c
        guard chunk.last else { return nil }
        current = nil
        try c.handle.synchronize()
        try c.handle.close()
        let digest = Data(c.hasher.finalize())
        guard c.received == c.offer.size, digest == c.offer.sha256 else {
            try? FileManager.default.removeItem(atPath: c.path)
            throw CoordinatorError("segment \(chunk.index) failed its checksum (\(c.received) of \(c.offer.size) bytes)")
        }
        // The span is on disk before the segment is: every seg-N.ts has its index line.
        try appendIndexLine(IndexLine(index: Int(chunk.index), firstPtsNs: c.offer.firstPtsNs, durationNs: c.offer.durationNs,
                                      frameCount: Int(c.offer.frameCount), sha256: Self.hex(digest)))
        spans[Int(chunk.index)] = (c.offer.firstPtsNs, c.offer.durationNs)
        frames[Int(chunk.index)] = Int(c.offer.frameCount)
        let final = path(index: Int(chunk.index))
        try? FileManager.default.removeItem(atPath: final)
        try FileManager.default.moveItem(atPath: c.path, toPath: final)
        received[Int(chunk.index)] = final
        return (Int(chunk.index), final, c.offer)
    }
}

extension SegmentReceiver {
    private func appendIndexLine(_ entry: IndexLine) throws {
        do {
            try DurableLines.append(try JSONEncoder().encode(entry), to: indexPath)
        } catch let error as DurableLines.WriteError {
            throw CoordinatorError(error.description)
        }
    }
}

/// The session folder's disk is full: nothing more can be written there. Told apart from
/// other write errors, because the take must then end without stopping the agents (they
/// keep everything) and the user be told to free space and `resume`.
public struct OutputDiskFull: Error, CustomStringConvertible {
    public let directory: String
    public let freeBytes: Int64
    public let underlying: String
    /// One sentence for the person: the write error behind it (a Foundation error dump,
    /// NSCocoaErrorDomain and all) goes to the log, not into what is said.
    public var description: String {
        "the disk holding \(directory) is full (\(freeBytes / 1000) kB free)"
    }

    /// Below this, a failed write is taken for a full disk: less than a segment.
    static let floorBytes: Int64 = 4 << 20

    /// Runs `body`; a write error while the disk has less than `floorBytes` left becomes
    /// OutputDiskFull.
    static func judging<T>(_ directory: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            guard let free = FreeSpace.bytes(at: directory), free < floorBytes else { throw error }
            throw OutputDiskFull(directory: directory, freeBytes: free, underlying: "\(error)")
        }
    }
}

public struct CoordinatorError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
