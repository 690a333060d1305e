import Crypto
import DualCamProtocol
import Foundation

/// Receives one agent's segments into the session folder. A segment is written to a
/// `.part` file, fsynced, checked against its SHA-256 and only then renamed and
/// acknowledged as durable: an ack is a promise that the agent may delete its copy.
final class SegmentReceiver {
    let directory: String
    private var current: (offer: Dualcam_V1_SegmentOffer, handle: FileHandle, hasher: SHA256, received: UInt64, path: String)?
    private var acknowledgedBytes: UInt64 = 0
    private(set) var received: [Int: String] = [:]

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func path(index: Int) -> String { directory + "/" + String(format: "seg-%06d.ts", index) }

    func offer(_ offer: Dualcam_V1_SegmentOffer) throws {
        let part = path(index: Int(offer.index)) + ".part"
        guard FileManager.default.createFile(atPath: part, contents: nil),
              let handle = FileHandle(forWritingAtPath: part) else {
            throw CoordinatorError("cannot write \(part)")
        }
        current = (offer, handle, SHA256(), 0, part)
        acknowledgedBytes = 0
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
        let final = path(index: Int(chunk.index))
        try? FileManager.default.removeItem(atPath: final)
        try FileManager.default.moveItem(atPath: c.path, toPath: final)
        received[Int(chunk.index)] = final
        return (Int(chunk.index), final, c.offer)
    }
}

public struct CoordinatorError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
