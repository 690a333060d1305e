extension Dualcam_V1_Envelope.OneOf_Body {
    /// The message's name as PROTOCOL.md writes it, for error messages sent to peers.
    public var name: String {
        switch self {
        case .hello: "Hello"
        case .helloAck: "HelloAck"
        case .clockPing: "ClockPing"
        case .clockPong: "ClockPong"
        case .clockStatus: "ClockStatus"
        case .prepare: "Prepare"
        case .ready: "Ready"
        case .startAt: "StartAt"
        case .stop: "Stop"
        case .segmentOffer: "SegmentOffer"
        case .segmentData: "SegmentData"
        case .segmentAck: "SegmentAck"
        case .recordingFinished: "RecordingFinished"
        case .telemetry: "Telemetry"
        case .error: "Error"
        case .keepalive: "Keepalive"
        case .shutdown: "Shutdown"
        case .segmentRequest: "SegmentRequest"
        }
    }
}
