import Foundation
@testable import DualCamProtocol

/// Small builders so tests read as the message flow they check.
enum Envelopes {
    static func envelope(_ body: Dualcam_V1_Envelope.OneOf_Body, sequence: UInt64, inReplyTo: UInt64 = 0) -> Dualcam_V1_Envelope {
        var e = Dualcam_V1_Envelope()
        e.sequence = sequence
        e.inReplyTo = inReplyTo
        e.body = body
        return e
    }

    static func version(_ major: UInt32, _ minor: UInt32) -> Dualcam_V1_ProtocolVersion {
        var v = Dualcam_V1_ProtocolVersion()
        v.major = major
        v.minor = minor
        return v
    }

    static func hello(major: UInt32 = WireProtocol.major, minor: UInt32 = WireProtocol.minor, window: UInt64 = 0) -> Dualcam_V1_Hello {
        var h = Dualcam_V1_Hello()
        h.version = version(major, minor)
        h.software = "test-coordinator"
        h.nodeName = "laptop"
        h.uploadWindowBytes = window
        return h
    }

    static func helloAck(major: UInt32 = WireProtocol.major, minor: UInt32 = WireProtocol.minor) -> Dualcam_V1_HelloAck {
        var a = Dualcam_V1_HelloAck()
        a.version = version(major, minor)
        a.software = "test-agent"
        a.nodeName = "pi-1"
        a.role = .host
        return a
    }

    static func prepare(_ session: String) -> Dualcam_V1_Prepare {
        var p = Dualcam_V1_Prepare()
        p.sessionID = session
        p.video.width = 1280
        p.video.height = 720
        p.video.fpsNum = 30
        p.video.fpsDen = 1
        return p
    }

    static func ready(_ session: String) -> Dualcam_V1_Ready {
        var r = Dualcam_V1_Ready()
        r.sessionID = session
        return r
    }

    static func startAt(_ session: String, t0: Int64 = 5_000_000_000, stop: Int64 = 0) -> Dualcam_V1_StartAt {
        var s = Dualcam_V1_StartAt()
        s.sessionID = session
        s.t0SharedNs = t0
        s.stopSharedNs = stop
        return s
    }

    static func stop(_ session: String, at: Int64 = 9_000_000_000) -> Dualcam_V1_Stop {
        var s = Dualcam_V1_Stop()
        s.sessionID = session
        s.stopSharedNs = at
        return s
    }

    static func finished(_ session: String, segments: UInt32 = 0) -> Dualcam_V1_RecordingFinished {
        var f = Dualcam_V1_RecordingFinished()
        f.sessionID = session
        f.segmentCount = segments
        return f
    }

    static func offer(_ session: String, index: UInt32, size: UInt64, resume: UInt64 = 0) -> Dualcam_V1_SegmentOffer {
        var o = Dualcam_V1_SegmentOffer()
        o.sessionID = session
        o.index = index
        o.size = size
        o.sha256 = Data(repeating: 0xAB, count: 32)
        o.resumeOffset = resume
        return o
    }

    static func data(_ session: String, index: UInt32, offset: UInt64, count: Int, size: UInt64) -> Dualcam_V1_SegmentData {
        var d = Dualcam_V1_SegmentData()
        d.sessionID = session
        d.index = index
        d.offset = offset
        d.data = Data(repeating: UInt8(truncatingIfNeeded: offset), count: count)
        d.last = offset + UInt64(count) == size
        return d
    }

    static func ack(_ session: String, index: UInt32, received: UInt64, durable: Bool = false) -> Dualcam_V1_SegmentAck {
        var a = Dualcam_V1_SegmentAck()
        a.sessionID = session
        a.index = index
        a.receivedBytes = received
        a.durable = durable
        return a
    }

    static func request(_ session: String, index: UInt32, offset: UInt64) -> Dualcam_V1_SegmentRequest {
        var r = Dualcam_V1_SegmentRequest()
        r.sessionID = session
        r.index = index
        r.offset = offset
        return r
    }
}

extension Array {
    /// The envelopes among `.send` actions.
    func sent<E>() -> [Dualcam_V1_Envelope] where Element == ConnectionAction<E> {
        compactMap { if case .send(let e) = $0 { e } else { nil } }
    }

    func delivered<E>() -> [E] where Element == ConnectionAction<E> {
        compactMap { if case .deliver(let e) = $0 { e } else { nil } }
    }

    /// The error a `.close` action carries, if the actions close the connection.
    func closeError<E>() -> ProtocolError?? where Element == ConnectionAction<E> {
        for case .close(let error) in self { return .some(error) }
        return .none
    }

    /// The wire Error sent, if any.
    func sentError<E>() -> Dualcam_V1_Error? where Element == ConnectionAction<E> {
        for e in sent() { if case .error(let err)? = e.body { return err } }
        return nil
    }
}
