import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of every studio route: Hummingbird's WebSocket context plus the
/// connection it came on, which the access rules need (whose guesses to count, which
/// connection to let off its stranger's deadline).
struct StudioContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }

    /// The peer's address without its port, for counting; "unknown" for a socket without one.
    var peer: String { channel.remoteAddress?.ipAddress ?? "unknown" }

    /// This connection made a request the studio admitted: it is no longer a stranger.
    func admitted() {
        channel.triggerUserOutboundEvent(StudioConnectionAdmitted(), promise: nil)
    }
}
