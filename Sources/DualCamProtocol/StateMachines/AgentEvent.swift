import DualCamCore

/// What the agent's connection state machine hands to the agent application.
public enum AgentEvent: Sendable, Equatable {
    /// Handshake done: the coordinator's Hello was accepted and HelloAck sent.
    case connected(Dualcam_V1_Hello)
    /// Open source and encoder for this session, then send Ready (or an Error with the
    /// session_id if that fails).
    case prepare(Dualcam_V1_Prepare)
    case startAt(Dualcam_V1_StartAt)
    /// Stop recording (or cancel a session not started yet), upload the rest, then send
    /// RecordingFinished. May repeat for the same session with a new stop instant.
    case stop(Dualcam_V1_Stop)
    /// A completed clock-sync exchange, t4 being the time passed to `receive`.
    case clockSample(ClockSample)
    case segmentAck(Dualcam_V1_SegmentAck)
    /// The coordinator wants this segment (again) from `offset`. Answer with a
    /// SegmentOffer (resume_offset = offset) or an Error ERROR_SEGMENT_UNAVAILABLE sent
    /// with `inReplyTo: requestSequence`.
    case segmentRequested(Dualcam_V1_SegmentRequest, requestSequence: UInt64)
    /// Re-attach to a session (PROTOCOL.md §8.6): offer its spooled segments not in
    /// `held`, then new ones, then RecordingFinished.
    case resume(Dualcam_V1_Resume)
    /// Acknowledgements freed window space; this many bytes may be sent now.
    case uploadWindowOpened(availableBytes: UInt64)
    case shutdown(Dualcam_V1_Shutdown)
    /// Start, change or stop (width 0) the live preview (§16); a key frame comes next.
    case previewRequest(Dualcam_V1_PreviewRequest)
    /// Remove the session from the spool unless it is in use (§17), then answer
    /// SessionForgotten with the bytes freed, or why it is kept.
    case forgetSession(Dualcam_V1_ForgetSession)
    /// Read and change the camera's controls (§18); answer CameraState with its request_id.
    case cameraRequest(Dualcam_V1_CameraRequest)
    /// Send clock pings as datagrams to this UDP port as well (§20), keeping the ClockPings
    /// on the connection for as long as the lane does not answer.
    case clockLaneOffered(Dualcam_V1_ClockLaneOffer)
    case peerError(Dualcam_V1_Error)
}
