import DualCamProtocol
import NIOCore

/// An envelope with the instant its frame was decoded, on the node's clock.
public struct ReceivedEnvelope: Sendable {
    public let envelope: Dualcam_V1_Envelope
    public let receivedAtNanoseconds: Int64
}

/// The instant of the newest socket read, taken before TLS decryption and frame decoding,
/// so that their cost (large in a debug build, and on a busy Pi) stays out of t2 and t4.
/// Both handlers of one channel run on its event loop, which is the only place this is
/// touched.
final class SocketReadInstant {
    var nanoseconds: Int64 = 0
}

/// First in the pipeline: notes when ciphertext arrived from the socket.
final class SocketReadStamper: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let instant: SocketReadInstant
    private let clock: @Sendable () -> Int64

    init(_ instant: SocketReadInstant, clock: @escaping @Sendable () -> Int64) {
        self.instant = instant
        self.clock = clock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        instant.nanoseconds = clock()
        context.fireChannelRead(data)
    }
}

/// Stamps what must be stamped at the wire, on the event loop: a received envelope with
/// the socket read that completed it (t2, t4) and a ping right before encryption (t1, t3),
/// so that scheduling of Swift tasks never enters the measured round trip, and the sequence number of every
/// outbound envelope, in the order they are written. On the coordinator it also answers
/// pings in place (t2 at decode, t3 at write), replying with `in_reply_to`.
final class WireStampHandler: ChannelDuplexHandler {
    typealias InboundIn = Dualcam_V1_Envelope
    typealias InboundOut = ReceivedEnvelope
    typealias OutboundIn = Dualcam_V1_Envelope
    typealias OutboundOut = Dualcam_V1_Envelope

    enum Side { case agent, coordinator }

    private let side: Side
    private let clock: @Sendable () -> Int64
    private let readInstant: SocketReadInstant
    private var sequence: UInt64 = 0

    init(side: Side, clock: @escaping @Sendable () -> Int64, readInstant: SocketReadInstant) {
        self.side = side
        self.clock = clock
        self.readInstant = readInstant
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = readInstant.nanoseconds
        let envelope = unwrapInboundIn(data)
        if side == .coordinator, case .clockPing(let ping)? = envelope.body {
            var pong = Dualcam_V1_ClockPong()
            pong.id = ping.id
            pong.t1Ns = ping.t1Ns
            pong.t2Ns = received
            var reply = Dualcam_V1_Envelope()
            sequence += 1
            reply.sequence = sequence
            reply.inReplyTo = envelope.sequence
            pong.t3Ns = clock()
            reply.clockPong = pong
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            return
        }
        context.fireChannelRead(wrapInboundOut(ReceivedEnvelope(envelope: envelope, receivedAtNanoseconds: received)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var envelope = unwrapOutboundIn(data)
        sequence += 1
        envelope.sequence = sequence
        if side == .agent, case .clockPing(var ping)? = envelope.body {
            ping.t1Ns = clock()
            envelope.clockPing = ping
        }
        context.write(wrapOutboundOut(envelope), promise: promise)
    }
}
