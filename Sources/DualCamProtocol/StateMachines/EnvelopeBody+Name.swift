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
        case .resume: "Resume"
        case .pairRequest: "PairRequest"
        case .pairShare: "PairShare"
        case .pairConfirm: "PairConfirm"
        case .pairResult: "PairResult"
        case .previewRequest: "PreviewRequest"
        case .previewFrame: "PreviewFrame"
        case .forgetSession: "ForgetSession"
        case .sessionForgotten: "SessionForgotten"
        case .cameraRequest: "CameraRequest"
        case .cameraState: "CameraState"
        case .encoderStatus: "EncoderStatus"
        case .clockLaneOffer: "ClockLaneOffer"
        case .sourceStatus: "SourceStatus"
        }
    }

    /// Pairing messages travel only on a connection let in for pairing (§14).
    public var isPairing: Bool {
        switch self {
        case .pairRequest, .pairShare, .pairConfirm, .pairResult: true
        default: false
        }
    }
}
