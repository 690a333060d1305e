import NIOCore

/// Watches a stranger's first bytes, before TLS reads them, and tells its admission ticket
/// once a whole first record (a ClientHello) has arrived: proof that it is doing a
/// handshake rather than holding a socket with a fragment (`ConnectionAdmission.Proof`).
/// Passes every byte on untouched and leaves the pipeline once it has decided.
final class ClientHelloWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let ticket: ConnectionAdmission.Ticket
    private var header: [UInt8] = []
    private var received = 0

    init(ticket: ConnectionAdmission.Ticket) { self.ticket = ticket }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        received += bytes.readableBytes
        if header.count < 5, let more = bytes.getBytes(at: bytes.readerIndex, length: min(5 - header.count, bytes.readableBytes)) {
            header += more
        }
        context.fireChannelRead(data)
        guard header.count == 5 else { return }
        // A TLS handshake record: type 22, then version and a 16-bit length.
        if header[0] == 22 {
            let length = Int(header[3]) << 8 | Int(header[4])
            guard received >= 5 + length else { return }
            ticket.proved(.clientHello)
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
