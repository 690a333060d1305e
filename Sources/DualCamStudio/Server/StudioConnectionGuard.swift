import DualCamNet
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore

/// Told down a connection's pipeline once it made a request the studio admitted: from
/// then on it is a browser's, no longer a stranger's.
struct StudioConnectionAdmitted: Sendable {}

/// Sits first in every accepted connection's pipeline (before TLS): holds the stranger's
/// place in `ConnectionAdmission` and closes the connection when it has made no admitted
/// request `strangerSeconds` after it opened. Before this, 1,100 idle connections from a
/// host without a token used up the coordinator's descriptors and failed a take, and 300
/// idle ones were still open 330 s later.
final class StrangerTimeout: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any

    private let seconds: Double
    private var ticket: ConnectionAdmission.Ticket?
    private var deadline: Scheduled<Void>?

    init(ticket: ConnectionAdmission.Ticket, seconds: Double) {
        self.ticket = ticket
        self.seconds = seconds
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            Self.dismiss(channel)
        }
    }

    /// Closes a stranger's connection as if its peer had gone: Hummingbird logs a
    /// connection closed under its HTTP upgrade handler as an error, one line per
    /// connection (304 for a flood of 300), but one whose input closed only at trace.
    static func dismiss(_ channel: any Channel) {
        channel.eventLoop.execute {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        admitted()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is StudioConnectionAdmitted else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        admitted()
        promise?.succeed()
    }

    private func admitted() {
        deadline?.cancel()
        deadline = nil
        ticket?.release()
        ticket = nil
    }
}

/// Hummingbird's child channel with the stranger budget in front: every accepted
/// connection is admitted (evicting the oldest stranger when the budget is full) and
/// given its deadline before the HTTP (or TLS) handlers see a byte.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let admission: ConnectionAdmission
    let strangerSeconds: Double
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (ticket, eviction) = admission.admit(channel.remoteAddress) { StrangerTimeout.dismiss(channel) }
        if let eviction, eviction.worthLogging {
            let limit = eviction.perAddressFull ? "\(admission.limits.perAddress) from one address" : "\(admission.limits.total) in all"
            let words = "studio: closed the oldest connection from \(eviction.address) that had made no request with a "
                + "session: \(limit) were open (\(eviction.count) closed so far)"
            self.logger.notice("\(words)")
        }
        channel.closeFuture.whenComplete { _ in ticket.release() }
        do {
            try channel.pipeline.syncOperations.addHandler(StrangerTimeout(ticket: ticket, seconds: strangerSeconds), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the WebSocket upgrade, over TLS when `tls` is given, every connection
    /// behind the stranger budget (`GuardedChildChannel`).
    static func guarded<Responder: HTTPResponder>(
        webSocketResponder: Responder, configuration: HTTP1WebSocketUpgradeChannel.Configuration,
        tls: TLSConfiguration?, admission: ConnectionAdmission, strangerSeconds: Double, logger: Logger
    ) -> HTTPServerBuilder where Responder.Context: WebSocketRequestContext {
        HTTPServerBuilder { responder -> any ServerChildChannel in
            let http = HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                    configuration: configuration)
            guard let tls else {
                return GuardedChildChannel(base: http, admission: admission, strangerSeconds: strangerSeconds, logger: logger)
            }
            return GuardedChildChannel(base: try TLSChannel(http, tlsConfiguration: tls), admission: admission,
                                       strangerSeconds: strangerSeconds, logger: logger)
        }
    }
}
