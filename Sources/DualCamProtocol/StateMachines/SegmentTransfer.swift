/// One offer of one segment on one connection, as either side counts it.
struct SegmentTransfer: Sendable, Hashable {
    let key: SegmentKey
    let size: UInt64
    /// The next byte to send (agent) or expect (coordinator).
    var nextOffset: UInt64
    /// Highest received_bytes acknowledged so far; starts at the resume offset, since
    /// bytes below it were acknowledged on an earlier connection.
    var ackedOffset: UInt64

    init(offer: Dualcam_V1_SegmentOffer) {
        key = SegmentKey(sessionID: offer.sessionID, index: offer.index)
        size = offer.size
        nextOffset = offer.resumeOffset
        ackedOffset = offer.resumeOffset
    }

    /// All of the segment's data has been sent (agent) or received (coordinator).
    var allDataTransferred: Bool { nextOffset == size }

    /// Bytes that count against the upload window.
    var unacknowledged: UInt64 { nextOffset - ackedOffset }

    /// Checks one SegmentData against this transfer: it must continue exactly where the
    /// previous chunk ended, fit the segment and the chunk limit, and flag the end.
    func check(_ data: Dualcam_V1_SegmentData) throws(ProtocolError) {
        let count = UInt64(data.data.count)
        guard data.offset == nextOffset else {
            throw ProtocolError(.badMessage, "SegmentData \(key) at offset \(data.offset), expected \(nextOffset)")
        }
        guard count > 0, count <= UInt64(WireProtocol.maxSegmentChunkBytes) else {
            throw ProtocolError(.badMessage, "SegmentData \(key) carries \(count) bytes; chunks are 1…\(WireProtocol.maxSegmentChunkBytes)")
        }
        guard count <= size - nextOffset else {
            throw ProtocolError(.badMessage, "SegmentData \(key) runs past the offered size \(size)")
        }
        guard data.last == (nextOffset + count == size) else {
            throw ProtocolError(.badMessage, "SegmentData \(key): last must be set exactly on the chunk that ends the segment")
        }
    }
}
