import Crypto
import DualCamMedia
import Foundation

/// Cuts encoded packets into segments in the spool: a new segment at the first keyframe
/// of each segment slot, each finished one fsynced, hashed and listed in the manifest
/// before anyone is told of it.
struct SegmentSink {
    let sessionID: String
    let spool: SegmentSpool
    let segmentNanoseconds: Int64
    /// The frame period, by which a frame's stamp is placed in its slot (`slot(ofPts:)`).
    let periodNanoseconds: Int64
    let stats: PipelineStats
    let onSegment: @Sendable (SpooledSegment) -> Void
    private(set) var count = 0
    private var writer: SegmentWriter?
    private var writerSlot: Int64 = -1
    private var space: DiskGuard
    /// The sound track's format, nil for a node recording video only.
    var audio: AudioParameters?
    /// Its uncompressed copy, for the lossless file beside the video.
    var lossless: AudioParameters?
    /// Audio that arrived before the first segment opened.
    private var heldAudio: [AudioPacket] = []
    /// Segments that failed while being written (their file removed or unwritable), by
    /// index with the reason: dropped, noted lost in the spool, and the recording went on.
    private(set) var lost: [(index: Int, reason: String)] = []

    /// `firstIndex` > 0 continues a session this agent recorded part of before it was
    /// restarted: indices go on after the spooled ones.
    init(sessionID: String, spool: SegmentSpool, segmentNanoseconds: Int64, periodNanoseconds: Int64, reserveBytes: Int64,
         stats: PipelineStats, firstIndex: Int = 0, onSegment: @escaping @Sendable (SpooledSegment) -> Void) {
        self.periodNanoseconds = periodNanoseconds
        self.sessionID = sessionID
        self.count = firstIndex
        self.spool = spool
        self.segmentNanoseconds = segmentNanoseconds
        self.stats = stats
        self.onSegment = onSegment
        self.space = DiskGuard(path: spool.root, minimumReserveBytes: reserveBytes)
    }

    /// The segment slot of a frame stamped `pts`: the slot of the frame instant nearest to
    /// its stamp. A genlocked frame meant for a slot's first instant is stamped a few µs
    /// before or after it (clock error); judged by the stamp alone, the frame landed in the
    /// slot before about half the time, which then held one frame more and lost it with
    /// itself when that segment failed. The recording pipeline cuts by the same rule.
    func slot(ofPts pts: Int64) -> Int64 {
        max(pts + periodNanoseconds / 2, 0) / segmentNanoseconds
    }

    /// The index the segment opened at the next keyframe of a new slot will have.
    var nextIndex: Int { writer == nil ? count : count + 1 }
    /// Set by `cutAtNextKeyframe`: the next keyframe opens a segment though its slot has one.
    private var cutRequested = false

    /// An encoder switched mid-slot (the node could not wait for the boundary): its first
    /// frame, an IDR with the new parameter sets, starts a segment of its own.
    mutating func cutAtNextKeyframe() { cutRequested = true }

    mutating func store(_ packets: [EncodedPacket], parameters: CodecParameters) throws {
        for packet in packets {
            let slot = slot(ofPts: packet.ptsNanoseconds)
            if packet.isKeyframe && (writer == nil || slot != writerSlot || cutRequested) {
                cutRequested = false
                try finishSegment()
                // Checked before a segment opens, so a disk about to fill ends the
                // recording at a segment boundary, with nothing half written.
                try space.check()
                writer = try SegmentWriter(path: spool.segmentPath(session: sessionID, index: count),
                                           parameters: parameters, audio: audio, lossless: lossless)
                writerSlot = slot
                if !heldAudio.isEmpty {
                    let held = heldAudio
                    heldAudio = []
                    try storeAudio(held)
                }
            }
            // Before the first keyframe there is nothing decodable to store.
            do {
                try writer?.write(packet)
            } catch {
                try drop(error)
            }
        }
    }

    /// Sound goes into whichever segment is open when it is ready: a packet belongs to
    /// the stream's timeline, not to a segment's span, and every segment still decodes on
    /// its own.
    mutating func storeAudio(_ packets: [AudioPacket]) throws {
        guard let writer else {
            heldAudio += packets
            return
        }
        do {
            for p in packets { try writer.writeAudio(p.packet, lossless: p.lossless) }
        } catch {
            try drop(error)
        }
    }

    /// The open segment failed. A full disk ends the recording (nothing further could be
    /// kept); anything else costs this segment only: it is removed, noted lost so that the
    /// coordinator finishes without it, and the next keyframe opens the next segment.
    private mutating func drop(_ error: any Error) throws {
        let path = spool.segmentPath(session: sessionID, index: count)
        if DiskSpace.fullDiskMessage(for: error, path: spool.root) != nil || (try? space.check()) == nil { throw error }
        writer = nil
        try? FileManager.default.removeItem(atPath: path)
        try? spool.markLost(session: sessionID, index: count)
        lost.append((count, "\(error)"))
        count += 1
    }

    mutating func finish() throws { try finishSegment() }

    /// After a failure: the open segment is finished if it still can be, else removed, so
    /// the spool holds only whole segments.
    mutating func salvage() {
        guard writer != nil else { return }
        if (try? finishSegment()) == nil {
            try? FileManager.default.removeItem(atPath: spool.segmentPath(session: sessionID, index: count))
            writer = nil
        }
    }

    /// Read in slices: a whole segment read at once is megabytes more resident at 1080p,
    /// on a node that must stay small.
    static func digest(ofFileAt path: String) throws -> SHA256.Digest {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw SpoolError("cannot read \(path) to hash it")
        }
        defer { try? file.close() }
        var hasher = SHA256()
        while let slice = try file.read(upToCount: 256 << 10), !slice.isEmpty {
            hasher.update(data: slice)
        }
        return hasher.finalize()
    }

    /// A segment that cannot be closed and listed is removed: the spool holds exactly
    /// the segments its manifest lists, each whole (a disk that filled while the trailer
    /// or the manifest line was written leaves no half segment behind).
    private mutating func finishSegment() throws {
        guard let w = writer else { return }
        writer = nil
        let path = spool.segmentPath(session: sessionID, index: count)
        let segment: SpooledSegment
        do {
            let info = try w.finish()
            let digest = try Self.digest(ofFileAt: path)
            segment = SpooledSegment(
                sessionID: sessionID, index: count, path: path,
                byteCount: info.byteCount, frameCount: info.frameCount,
                firstPtsNanoseconds: info.firstPtsNanoseconds, durationNanoseconds: info.durationNanoseconds,
                sha256: digest.map { String(format: "%02x", $0) }.joined())
            try spool.record(segment)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            // Its file was removed under it, or cannot be read back: this segment is lost,
            // the recording is not (a full disk still ends it, in drop).
            try drop(error)
            return
        }
        count += 1
        space.lastSegmentBytes = segment.byteCount
        stats.update { $0.segments += 1 }
        onSegment(segment)
    }
}
