/// The agent's side of segment uploads: which transfer is active, what the coordinator
/// has acknowledged, and how many bytes the window still admits.
struct UploadWindow: Sendable {
    let capacity: UInt64
    private(set) var transfers: [SegmentKey: SegmentTransfer] = [:]
    /// The transfer whose data is being sent; nil once its last chunk went out.
    private(set) var active: SegmentKey?
    /// SegmentRequests received and not yet answered, with the sequence of the request
    /// envelope: the answering offer (or Error) carries it in in_reply_to.
    private(set) var pendingRequests: [SegmentKey: UInt64] = [:]

    init(capacity: UInt64) {
        self.capacity = capacity
    }

    var inFlight: UInt64 { transfers.values.reduce(0) { $0 + $1.unacknowledged } }
    var available: UInt64 { capacity - min(capacity, inFlight) }

    /// Validates and records an outbound offer; returns the in_reply_to to send with it.
    mutating func offer(_ offer: Dualcam_V1_SegmentOffer) throws(ProtocolError) -> UInt64 {
        try MessageValidation.checkOffer(offer)
        if let active {
            throw ProtocolError(.badState, "cannot offer \(offer.sessionID)#\(offer.index) while \(active) is still being sent")
        }
        let transfer = SegmentTransfer(offer: offer)
        if transfers[transfer.key] == nil && transfers.count >= WireProtocol.maxTrackedSegments {
            throw ProtocolError(.flowControl, "\(transfers.count) segments await acknowledgement; wait for acks before offering more")
        }
        transfers[transfer.key] = transfer
        if !transfer.allDataTransferred { active = transfer.key }
        return pendingRequests.removeValue(forKey: transfer.key) ?? 0
    }

    /// Validates and records an outbound chunk.
    mutating func send(_ data: Dualcam_V1_SegmentData) throws(ProtocolError) {
        let key = SegmentKey(sessionID: data.sessionID, index: data.index)
        guard key == active, var transfer = transfers[key] else {
            throw ProtocolError(.badState, "SegmentData for \(key), which is not the segment being sent (\(active.map(\.description) ?? "none"))")
        }
        try transfer.check(data)
        let count = UInt64(data.data.count)
        guard count <= available else {
            throw ProtocolError(.flowControl, "chunk of \(count) bytes exceeds the \(available) bytes the upload window admits")
        }
        transfer.nextOffset += count
        transfers[key] = transfer
        if transfer.allDataTransferred { active = nil }
    }

    /// Applies an inbound SegmentAck; returns whether window space was freed.
    mutating func acknowledge(_ ack: Dualcam_V1_SegmentAck) throws(ProtocolError) -> Bool {
        let key = SegmentKey(sessionID: ack.sessionID, index: ack.index)
        // An ack for a segment not in transfer here is a harmless duplicate.
        guard var transfer = transfers[key] else { return false }
        // A durable ack of a segment held already names its whole size (§8.2).
        guard ack.durable || ack.receivedBytes <= transfer.nextOffset else {
            throw ProtocolError(.badMessage, "SegmentAck \(key) acknowledges \(ack.receivedBytes) bytes; only \(transfer.nextOffset) were sent")
        }
        let before = transfer.unacknowledged
        if ack.durable {
            // Durable: the coordinator has it all; nothing more of it is sent.
            transfers[key] = nil
            if active == key { active = nil }
            return before > 0
        }
        transfer.ackedOffset = max(transfer.ackedOffset, ack.receivedBytes)
        transfers[key] = transfer
        return transfer.unacknowledged < before
    }

    /// Applies an inbound SegmentRequest: a transfer of that segment is abandoned at once
    /// (the coordinator discards its remaining data and stops counting it).
    mutating func request(_ request: Dualcam_V1_SegmentRequest, sequence: UInt64) throws(ProtocolError) -> Bool {
        try MessageValidation.checkSessionID(request.sessionID)
        let key = SegmentKey(sessionID: request.sessionID, index: request.index)
        if pendingRequests[key] == nil && pendingRequests.count >= WireProtocol.maxTrackedSegments {
            throw ProtocolError(.flowControl, "more than \(WireProtocol.maxTrackedSegments) unanswered SegmentRequests")
        }
        pendingRequests[key] = sequence
        let freed = (transfers[key]?.unacknowledged ?? 0) > 0
        transfers[key] = nil
        if active == key { active = nil }
        return freed
    }

    /// The agent answered a request with an Error instead of an offer.
    mutating func declineRequest(inReplyTo sequence: UInt64) {
        if let key = pendingRequests.first(where: { $0.value == sequence })?.key {
            pendingRequests[key] = nil
        }
    }
}
