import DualCamCore
import DualCamProtocol

/// What the coordinator keeps of one agent during a take: what it reported and what it
/// delivered. Its state in the take (ready, rejoining, lost, given up on) is the take
/// machine's (`Take.machine.agents`), and its link (connection, health, what the node can
/// do) the rig's (`Take.member`): neither is copied here.
struct AgentTracker {
    var endpoint: AgentEndpoint
    var name: String
    var role: Dualcam_V1_Role = .unspecified
    var cameraName = ""
    /// Its last clock report within the take (the rig's `Member.clock` goes with the link).
    var clock: Dualcam_V1_ClockStatus?
    /// Every clock report from the StartAt sent to it on.
    var clockHistory = ClockHistory()
    /// This process sent it StartAt: its clock reports from then on are the take's (a
    /// resumed take's come after its stop).
    var startAtSent = false
    /// Its source, encoder and sound as its Ready described them (printable).
    var source: String?
    /// How it encodes this take, from its Ready (protocol 1.6).
    var encoder: EncoderReport?
    /// Its preset now and any shortfall, from its last EncoderStatus (§19).
    var encoderStatus: Dualcam_V1_EncoderStatus?

    /// The preset it records at now: its last EncoderStatus's, else its Ready's.
    var presetNow: String? {
        encoderStatus.map(\.preset).flatMap { $0.isEmpty ? nil : $0 } ?? encoder?.preset
    }
    var finished: Dualcam_V1_RecordingFinished?
    var receiver: SegmentReceiver?
    /// End of the newest segment received, from T0: how far behind live the upload is.
    var receivedUpToNanoseconds: Int64 = 0
    var lastHeard: Int64 = 0
    var errors: [String] = []
    /// Connections to it that came back within the take (the manifest's statistics).
    var reconnects = 0
    /// Digital zoom changes asked during the take (the manifest's zoom timeline).
    var zoomChanges: [ZoomChange] = []
    /// Restarts after which it recorded the take again (the manifest's statistics).
    var rejoins = 0

    init(endpoint: AgentEndpoint) {
        self.endpoint = endpoint
        name = endpoint.host
    }

    /// The agents of a take a killed coordinator left, named as its session.json says.
    static func resuming(_ record: SessionRecord, endpoints: [AgentEndpoint]) -> [AgentTracker] {
        let names = SessionNaming.cameraNames(roles: record.agents.map { Dualcam_V1_Role(name: $0.role) ?? .unspecified })
        return zip(endpoints, record.agents).enumerated().map { i, pair in
            var tracker = AgentTracker(endpoint: pair.0)
            tracker.name = pair.1.name
            tracker.role = Dualcam_V1_Role(name: pair.1.role) ?? .unspecified
            tracker.cameraName = names[i]
            return tracker
        }
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
}
