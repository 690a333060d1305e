import DualCamNet
import DualCamProtocol

/// Everything a running session reacts to, merged into one stream: the agents'
/// connections (tagged with the connection's generation, so that the last words of a
/// replaced connection are told apart), reconnections, the clock, and the user.
enum SessionEvent: Sendable {
    /// What an agent's connection machine delivered (already validated against the protocol).
    case event(agent: Int, generation: Int, Delivery<CoordinatorEvent>)
    case closed(agent: Int, generation: Int, String?)
    case reconnected(agent: Int, AgentLink)
    /// Once a second: status line, deadlines.
    case tick
    case stopRequested(String)
    case control(LiveControl)
}

/// What the user can change while recording.
enum LiveControl: Sendable, Equatable {
    case nextLayout
    case swap
    case nextPiPPosition
    case layout(String)
}
