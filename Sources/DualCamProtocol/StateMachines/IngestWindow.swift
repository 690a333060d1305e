/// The coordinator's side of segment uploads: the transfer being received, what has been
/// acknowledged, and the upload window the agent must respect.
struct IngestWindow: Sendable {
    /// What to do with an arriving SegmentData.
    enum DataDisposition: Equatable {
        case deliver
        /// Data of a transfer the coordinator already ended (durable ack or request):
        /// it was on the wire before the agent learned that, and is dropped.
        case discard
    }

    let capacity: UInt64
    private(set) var transfers: [SegmentKey: SegmentTransfer] = [:]
    /// The transfer whose data is arriving.
    private(set) var active: SegmentKey?
    /// True when the active transfer's remaining data is to be dropped.
    private(set) var activeDiscarding = false
    /// SegmentRequests sent and not yet answered, by the sequence of the request envelope.
    private(set) var pendingRequests: [SegmentKey: UInt64] = [:]

    init(capacity: UInt64) {
        self.capacity = capacity
    }

    var inFlight: UInt64 { transfers.values.reduce(0) { $0 + $1.unacknowledged } }

    /// Validates an inbound offer; returns false when it crossed one of our requests and
    /// is dropped (the agent abandons it when the request reaches it).
    mutating func offer(_ offer: Dualcam_V1_SegmentOffer, inReplyTo: UInt64) throws(ProtocolError) -> Bool {
        try MessageValidation.checkOffer(offer)
        if let active, !activeDiscarding, transfers[active].map({ !$0.allDataTransferred }) ?? false {
            throw ProtocolError(.badState, "SegmentOffer \(offer.sessionID)#\(offer.index) before the last chunk of \(active)")
        }
        let key = SegmentKey(sessionID: offer.sessionID, index: offer.index)
        if let requested = pendingRequests[key] {
            guard inReplyTo == requested else {
                active = key
                activeDiscarding = true
                return false
            }
            pendingRequests[key] = nil
        }
        if transfers[key] == nil && transfers.count >= WireProtocol.maxTrackedSegments {
            throw ProtocolError(.flowControl, "more than \(WireProtocol.maxTrackedSegments) segments offered and not durably acknowledged")
        }
        let transfer = SegmentTransfer(offer: offer)
        transfers[key] = transfer
        active = key
        activeDiscarding = false
        return true
    }

    /// Validates an inbound chunk against the active transfer and the window.
    mutating func receive(_ data: Dualcam_V1_SegmentData) throws(ProtocolError) -> DataDisposition {
        let key = SegmentKey(sessionID: data.sessionID, index: data.index)
        guard key == active else {
            throw ProtocolError(.badState, "SegmentData for \(key) without a SegmentOffer (active: \(active.map(\.description) ?? "none"))")
        }
        if activeDiscarding { return .discard }
        guard var transfer = transfers[key] else {
            throw ProtocolError(.badState, "SegmentData for \(key) after its transfer ended")
        }
        try transfer.check(data)
        let count = UInt64(data.data.count)
        guard inFlight + count <= capacity else {
            throw ProtocolError(.flowControl, "\(inFlight + count) unacknowledged segment bytes exceed the upload window of \(capacity)")
        }
        transfer.nextOffset += count
        transfers[key] = transfer
        return .deliver
    }

    /// Validates and records an outbound SegmentAck.
    mutating func acknowledge(_ ack: Dualcam_V1_SegmentAck) throws(ProtocolError) {
        let key = SegmentKey(sessionID: ack.sessionID, index: ack.index)
        guard var transfer = transfers[key] else {
            throw ProtocolError(.badState, "SegmentAck for \(key), which is not being received")
        }
        // A durable ack of a segment held already names its whole size (§8.2).
        guard ack.durable || ack.receivedBytes <= transfer.nextOffset else {
            throw ProtocolError(.badMessage, "SegmentAck \(key) acknowledges \(ack.receivedBytes) bytes; only \(transfer.nextOffset) arrived")
        }
        if ack.durable {
            transfers[key] = nil
            if active == key && !transfer.allDataTransferred { activeDiscarding = true }
            return
        }
        transfer.ackedOffset = max(transfer.ackedOffset, ack.receivedBytes)
        transfers[key] = transfer
    }

    /// Records an outbound SegmentRequest sent in envelope `sequence`.
    mutating func request(_ request: Dualcam_V1_SegmentRequest, sequence: UInt64) throws(ProtocolError) {
        try MessageValidation.checkSessionID(request.sessionID)
        let key = SegmentKey(sessionID: request.sessionID, index: request.index)
        if pendingRequests[key] == nil && pendingRequests.count >= WireProtocol.maxTrackedSegments {
            throw ProtocolError(.flowControl, "more than \(WireProtocol.maxTrackedSegments) unanswered SegmentRequests")
        }
        pendingRequests[key] = sequence
        transfers[key] = nil
        if active == key { activeDiscarding = true }
    }

    /// The agent answered a request with an Error: forget the request.
    mutating func requestDeclined(inReplyTo sequence: UInt64) {
        if let key = pendingRequests.first(where: { $0.value == sequence })?.key {
            pendingRequests[key] = nil
        }
    }
}
