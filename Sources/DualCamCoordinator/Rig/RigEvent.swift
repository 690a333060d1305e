import DualCamNet
import DualCamProtocol

/// Everything the rig reacts to, merged into one stream: the agents' connections (tagged
/// with the connection's generation, so that the last words of a replaced connection are
/// told apart), reconnections, time, the screens' commands and the take's finishing.
enum RigEvent: Sendable {
    /// What an agent's connection machine delivered (already validated against the protocol).
    case event(agent: Int, generation: Int, Delivery<CoordinatorEvent>)
    case closed(agent: Int, generation: Int, String?)
    case reconnected(agent: Int, any RigLink)
    /// A few times a second: deadlines, the countdown, the snapshot's clock.
    case tick
    case command(RigCommand, CheckedContinuation<Void, any Error>?)
    /// The take's files are final (or could not be finished: the reason).
    case finalised(TakeResult?, String?)
    case shutdown(sendShutdown: Bool)
    /// Someone began or stopped watching the previews, or a viewer needs a key frame.
    case previewDemand
    /// Resumed once the loop has handled every event before it (`Rig.settled`).
    case settled(CheckedContinuation<Void, Never>)
}
