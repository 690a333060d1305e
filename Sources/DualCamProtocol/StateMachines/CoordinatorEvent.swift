/// What the coordinator's connection state machine hands to the coordinator application.
public enum CoordinatorEvent: Sendable, Equatable {
    /// Handshake done: the agent's HelloAck was accepted.
    case connected(Dualcam_V1_HelloAck)
    case clockStatus(Dualcam_V1_ClockStatus)
    case telemetry(Dualcam_V1_Telemetry)
    /// The agent's source went, came back or fails otherwise (§4.1, 1.8), checked, its
    /// sentence made printable; an empty problem: it can record.
    case sourceStatus(Dualcam_V1_SourceStatus)
    /// The encoder's preset now, and a shortfall while it cannot keep up (§19), checked.
    case encoderStatus(Dualcam_V1_EncoderStatus)
    case ready(Dualcam_V1_Ready)
    /// The agent refused Prepare (an Error naming the session came instead of Ready).
    case prepareFailed(Dualcam_V1_Error)
    /// No Ready within the configured time; the session is still `preparing`: send Stop
    /// to cancel it, or keep waiting.
    case readyTimedOut(sessionID: String)
    case recordingFinished(Dualcam_V1_RecordingFinished)
    /// Data of this offer follows: write it from `resume_offset` on, acknowledge as it is
    /// written, and durably once fsynced and the SHA-256 matches.
    case segmentOffered(Dualcam_V1_SegmentOffer)
    case segmentData(Dualcam_V1_SegmentData)
    case peerError(Dualcam_V1_Error)
    /// One picture of the agent's live preview (§16), checked.
    case previewFrame(Dualcam_V1_PreviewFrame)
    /// The agent's answer to ForgetSession (§17), checked, its reason made printable.
    case sessionForgotten(Dualcam_V1_SessionForgotten)
    /// The agent's answer to CameraRequest (§18), checked, its sentences made printable.
    case cameraState(Dualcam_V1_CameraState)
}
