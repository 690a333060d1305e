/// Checks on message contents that do not depend on the connection's state.
enum MessageValidation {
    /// Session IDs end up in file and folder names on the coordinator, so they are kept
    /// to a portable, path-safe alphabet: 1–64 bytes of [A-Za-z0-9._-], not starting with ".".
    static func checkSessionID(_ id: String) throws(ProtocolError) {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= WireProtocol.maxSessionIDBytes else {
            throw ProtocolError(.badMessage, "session_id must be 1–\(WireProtocol.maxSessionIDBytes) bytes, got \(bytes.count)")
        }
        guard bytes.first != UInt8(ascii: ".") else {
            throw ProtocolError(.badMessage, "session_id must not start with '.'")
        }
        for b in bytes {
            let ok = (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
                || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
            guard ok else {
                throw ProtocolError(.badMessage, "session_id may only contain A–Z, a–z, 0–9, '.', '_' and '-'")
            }
        }
    }

    static func checkOffer(_ offer: Dualcam_V1_SegmentOffer) throws(ProtocolError) {
        try checkSessionID(offer.sessionID)
        guard offer.size > 0, offer.size <= WireProtocol.maxSegmentBytes else {
            throw ProtocolError(.badMessage, "SegmentOffer \(offer.sessionID)#\(offer.index): size \(offer.size) is outside 1…\(WireProtocol.maxSegmentBytes)")
        }
        guard offer.sha256.count == 32 else {
            throw ProtocolError(.badMessage, "SegmentOffer \(offer.sessionID)#\(offer.index): sha256 must be 32 bytes, got \(offer.sha256.count)")
        }
        guard offer.resumeOffset <= offer.size else {
            throw ProtocolError(.badMessage, "SegmentOffer \(offer.sessionID)#\(offer.index): resume_offset \(offer.resumeOffset) is beyond size \(offer.size)")
        }
    }

    static func checkStartAt(_ start: Dualcam_V1_StartAt) throws(ProtocolError) {
        if start.stopSharedNs != 0 && start.stopSharedNs <= start.t0SharedNs {
            throw ProtocolError(.badMessage, "StartAt: stop_shared_ns \(start.stopSharedNs) is not after t0_shared_ns \(start.t0SharedNs)")
        }
    }
}
