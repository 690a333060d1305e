import Crypto
import DualCamNet
import DualCamProtocol
import Foundation

/// Sends spooled segments: an offer with size and SHA-256, then ≤256 KiB chunks. Writes
/// wait on the channel's writability, so a slow link slows the upload instead of
/// buffering segments in memory.
struct SegmentUploader {
    let out: EnvelopeWriter

    func upload(_ segment: SpooledSegment, from offset: Int = 0) async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: segment.path))
        var offer = Dualcam_V1_SegmentOffer()
        offer.sessionID = segment.sessionID
        offer.index = UInt32(segment.index)
        offer.size = UInt64(data.count)
        offer.sha256 = Data(SHA256.hash(data: data))
        offer.firstPtsNs = segment.firstPtsNanoseconds
        offer.durationNs = segment.durationNanoseconds
        offer.frameCount = UInt32(segment.frameCount)
        offer.container = .mpegts
        offer.resumeOffset = UInt64(offset)
        try await out.send(.segmentOffer(offer))
        var position = offset
        repeat {
            let end = min(position + WireProtocol.maxSegmentChunkBytes, data.count)
            var chunk = Dualcam_V1_SegmentData()
            chunk.sessionID = segment.sessionID
            chunk.index = UInt32(segment.index)
            chunk.offset = UInt64(position)
            chunk.data = data.subdata(in: position..<end)
            chunk.last = end == data.count
            try await out.send(.segmentData(chunk))
            position = end
        } while position < data.count
    }
}
