import Crypto
import DualCamNet
import DualCamProtocol
import Foundation

/// Sends spooled segments: an offer with size and SHA-256, then ≤256 KiB chunks, each
/// only once the upload window has room for it. The channel's own writability is not
/// enough: measured with `dualcam-bench net`, a writer that only waits on it let ~900 MB
/// pile up in memory within 5 s on loopback.
struct SegmentUploader {
    let connection: AgentConnection
    let credit: UploadCredit

    /// Reads the file a chunk at a time: the whole segment in memory would be megabytes
    /// more resident at 1080p, per segment in flight.
    func upload(_ segment: SpooledSegment, from offset: Int = 0) async throws {
        guard let file = FileHandle(forReadingAtPath: segment.path) else {
            throw SpoolError("segment \(segment.index) of \(segment.sessionID) is gone from the spool (\(segment.path))")
        }
        defer { try? file.close() }
        let size = Int(try file.seekToEnd())
        var offer = Dualcam_V1_SegmentOffer()
        offer.sessionID = segment.sessionID
        offer.index = UInt32(clamping: segment.index)
        offer.size = UInt64(size)
        // The hash taken when the segment was written: a file damaged on disk since then
        // fails the coordinator's check instead of being vouched for afresh.
        offer.sha256 = try segment.digest ?? Data(SegmentSink.digest(ofFileAt: segment.path))
        offer.firstPtsNs = segment.firstPtsNanoseconds
        offer.durationNs = segment.durationNanoseconds
        offer.frameCount = UInt32(clamping: segment.frameCount)
        offer.container = .mpegts
        offer.resumeOffset = UInt64(offset)
        credit.begin(segment: offer.index, resumeOffset: offer.resumeOffset)
        try connection.send(.segmentOffer(offer))
        try file.seek(toOffset: UInt64(offset))
        var position = offset
        repeat {
            let end = min(position + WireProtocol.maxSegmentChunkBytes, size)
            let bytes = try file.read(upToCount: end - position) ?? Data()
            guard bytes.count == end - position else {
                throw SpoolError("segment \(segment.index) of \(segment.sessionID) shrank while it was sent (\(segment.path))")
            }
            var chunk = Dualcam_V1_SegmentData()
            chunk.sessionID = segment.sessionID
            chunk.index = offer.index
            chunk.offset = UInt64(position)
            chunk.data = bytes
            chunk.last = end == size
            await credit.reserve(UInt64(end - position), of: offer.index)
            // The coordinator asked for this segment again (or acknowledged it whole)
            // meanwhile: the transfer is over, and the answer to its request follows.
            guard try sendChunk(chunk) else { return }
            position = end
        } while position < size
    }

    /// False when the state machine no longer counts this transfer as active.
    private func sendChunk(_ chunk: Dualcam_V1_SegmentData) throws -> Bool {
        switch Result(catching: { () throws(ProtocolError) in try connection.send(.segmentData(chunk)) }) {
        case .success: return true
        case .failure(let error) where error.code == .badState: return false
        case .failure(let error): throw error
        }
    }
}
