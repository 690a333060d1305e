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
/// the socket read that completed it (t2, t4), and a ClockPing's t1 or a ClockPong's t3
/// right before encryption, so that neither Swift task scheduling nor queueing behind
/// other messages enters the measured round trip. Sequence numbers come from the
/// connection's state machine; an envelope written without one (the pairing exchange,
/// which has no machine) is numbered here in write order.
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
        let envelope = unwrapInboundIn(data)
        context.fireChannelRead(wrapInboundOut(ReceivedEnvelope(envelope: envelope, receivedAtNanoseconds: readInstant.nanoseconds)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var envelope = unwrapOutboundIn(data)
        if envelope.sequence == 0 {
            sequence += 1
            envelope.sequence = sequence
        } else {
            sequence = max(sequence, envelope.sequence)
        }
        switch (side, envelope.body) {
        case (.agent, .clockPing(var ping)?):
            ping.t1Ns = clock()
            envelope.clockPing = ping
        case (.coordinator, .clockPong(var pong)?):
            pong.t3Ns = clock()
            envelope.clockPong = pong
        default:
            break
        }
        context.write(wrapOutboundOut(envelope), promise: promise)
    }
}
