import DualCamCore
import DualCamProtocol

/// What the coordinator knows of one agent during a session.
struct AgentTracker {
    enum Phase: Equatable {
        /// Connected; Hello sent, HelloAck awaited (then Resume goes out on a reconnect).
        case handshaking
        case attached
        /// Connection lost at this shared instant; reconnecting.
        case lost(since: Int64)
        /// Given up on: the session finishes without its missing segments.
        case gone
    }

    var endpoint: AgentEndpoint
    var name: String
    var role: Dualcam_V1_Role = .unspecified
    var cameraName = ""
    var phase: Phase = .handshaking
    var link: AgentLink?
    var generation = 0
    var clock: Dualcam_V1_ClockStatus? {
        didSet {
            // The manifest's figures are the take's: the seconds of convergence before it
            // (hundreds of microseconds of bound, rates off by hundreds of ppm) made a
            // third of the reports and set the session's bound p99 at 4x the locked one.
            guard let c = clock, phase == .attached, recording else { return }
            clockHistory.add(offsetNanoseconds: c.offsetNs, ratePPM: c.ratePpm, errorBoundNanoseconds: c.errorBoundNs,
                             roundTripNanoseconds: c.roundTripNs, locked: c.state == .clockLocked)
        }
    }
    /// Every clock report from the StartAt sent to it on.
    var clockHistory = ClockHistory()
    /// StartAt has gone to it: its clock reports now count for the session.
    var recording = false
    /// The largest picture and rate its camera delivers (HelloAck).
    var limits = CameraLimits.unknown
    /// What the node can encode, from its last refusal as too slow (Rig.Member.encodable).
    var encodable: [CaptureMode] = []
    var telemetry: Dualcam_V1_Telemetry?
    var ready = false
    /// Its source, encoder and sound as its Ready described them (printable).
    var source: String?
    /// How it encodes this take, from its Ready (protocol 1.6).
    var encoder: EncoderReport?
    /// Its preset now and any shortfall, from its last EncoderStatus (§19).
    var encoderStatus: Dualcam_V1_EncoderStatus?
    var finished: Dualcam_V1_RecordingFinished?
    var receiver: SegmentReceiver?
    /// End of the newest segment received, from T0: how far behind live the upload is.
    var receivedUpToNanoseconds: Int64 = 0
    var lastHeard: Int64 = 0
    var errors: [String] = []
    var reconnects = 0
    /// Digital zoom changes asked during the take (the manifest's zoom timeline).
    var zoomChanges: [ZoomChange] = []
    /// Restarted agent asked to record again (Prepare sent; StartAt follows once it is
    /// ready and its clock is locked).
    var rejoining = false
    var rejoins = 0

    init(endpoint: AgentEndpoint) {
        self.endpoint = endpoint
        name = endpoint.host
    }

    /// Every segment the agent said it cut is held durably here, but those it said it
    /// can no longer deliver (gone or damaged in its spool).
    var complete: Bool {
        guard let finished, let receiver else { return false }
        let lost = Set(finished.unavailableSegments.map(Int.init))
        return (0..<Int(finished.segmentCount)).allSatisfy { receiver.received[$0] != nil || lost.contains($0) }
    }

    var missingSegments: [Int] {
        guard let finished, let receiver else { return [] }
        return (0..<Int(finished.segmentCount)).filter { receiver.received[$0] == nil }
    }

    /// Missing because the agent's own copy is gone or damaged (not for want of waiting).
    var lostAtSource: [Int] {
        guard let finished, let receiver else { return [] }
        return finished.unavailableSegments.map(Int.init).filter { receiver.received[$0] == nil }.sorted()
    }

    var isLost: Bool {
        if case .lost = phase { return true }
        return false
    }
}
