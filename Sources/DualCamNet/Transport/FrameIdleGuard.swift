import NIOCore

/// Closes a connection when no complete frame has arrived for the timeout. Raw bytes do
/// not count: a peer that trickles a byte a second (or never finishes its TLS handshake)
/// is dropped just like a silent one.
final class FrameIdleGuard: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private let timeout: TimeAmount
    private var lastFrame = NIODeadline.now()
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        lastFrame = .now()
        if context.channel.isActive { schedule(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        lastFrame = .now()
        if check == nil { schedule(context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastFrame = .now()
        context.fireChannelRead(data)
    }

    private func schedule(_ context: ChannelHandlerContext) {
        let due = lastFrame + timeout
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = loopBound.value
            handler.check = nil
            guard context.channel.isActive else { return }
            if NIODeadline.now() >= handler.lastFrame + handler.timeout {
                context.fireErrorCaught(FrameIdleTimeout(seconds: handler.timeout.nanoseconds / 1_000_000_000))
                context.close(promise: nil)
            } else {
                handler.schedule(context)
            }
        }
    }
}

/// Why a connection was closed by `FrameIdleGuard`.
public struct FrameIdleTimeout: Error, CustomStringConvertible {
    public let seconds: Int64
    public var description: String { "no complete frame from the peer for \(seconds) s: dropped as idle" }
}
