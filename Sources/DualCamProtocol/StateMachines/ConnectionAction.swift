/// What a connection state machine asks its I/O shell to do, in order.
public enum ConnectionAction<Event: Sendable>: Sendable {
    /// Write this envelope to the peer.
    case send(Dualcam_V1_Envelope)
    /// Hand this event to the application.
    case deliver(Event)
    /// Flush what was sent and close the connection. `nil`: an orderly close;
    /// otherwise why the connection failed (already reported to the peer when the fault
    /// was the peer's or a timeout).
    case close(ProtocolError?)
}

extension ConnectionAction: Equatable where Event: Equatable {}
