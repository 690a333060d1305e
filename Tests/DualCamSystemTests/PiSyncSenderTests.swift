import DualCamCore
import DualCamNet
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
@testable import DualCamAgent

/// The agent's packets to a Pi camera's sync client, received on loopback as rpicam-vid
/// would receive them (no Pi here: what the client does with them is `PiSyncTests`' model).
@Suite struct PiSyncSenderTests {
    /// Collects the datagrams a bound UDP socket receives.
    final class Receiver: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let got = NIOLockedValueBox<[(wall: Int64, bytes: [UInt8])]>([])
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data).data
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            got.withLockedValue { $0.append((MonotonicTime.wallNanoseconds(), bytes)) }
        }
    }

    @Test func thePacketsPlaceOurGridOnThePisWallClock() async throws {
        let receiver = Receiver()
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { $0.pipeline.addHandler(receiver) }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { channel.close(promise: nil) }
        let port = try #require(channel.localAddress?.port)
        // A lone node: its own clock is the shared one, so the grid is CLOCK_MONOTONIC's.
        let clock = AgentClock(standaloneWith: .none)
        let sender = PiSyncSender(rate: .fps30, port: port, logger: Logger(label: "test"))
        let task = Task { await sender.run(clock: clock) }
        defer { task.cancel() }
        let start = Date()
        while receiver.got.withLockedValue({ $0.count }) < 4 && Date().timeIntervalSince(start) < 10 {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let got = receiver.got.withLockedValue { $0 }
        try #require(got.count >= 4, "\(got.count) packets")
        let wallMinusMonotonic = MonotonicTime.wallNanoseconds() - MonotonicTime.now()
        let alignment = StartAlignment(rate: .fps30)
        for (wall, bytes) in got {
            let packet = try #require(PiSyncPacket(bytes: bytes))
            #expect(packet.frameDurationMicroseconds == 33_333)
            let sent = Int64(packet.frameWallClockMicroseconds) * 1_000
            // A grid frame of the monotonic clock, 3-5 periods before the packet arrived.
            #expect(abs(alignment.phase(ofStampNanoseconds: sent - wallMinusMonotonic)) < 20_000)
            #expect(wall - sent > 3 * 33_333_333 - 5_000_000 && wall - sent < 5 * 33_333_333 + 50_000_000, "\(wall - sent) ns")
        }
        // Seven frames apart (233 ms), as the client needs to see each correction land;
        // a sender held up by a loaded machine sends late, never in a burst.
        // Read from the instants the packets carry (chosen as each is sent), not from their
        // arrival, which a loaded receiver may bunch.
        let instants = got.compactMap { PiSyncPacket(bytes: $0.bytes)?.frameWallClockMicroseconds }
        let gaps = zip(instants.dropFirst(), instants).map { Double($0 - $1) / 1e3 }
        #expect(gaps.min()! > 5 * 33.3, "\(gaps) ms")
        // A take that asked for no phase lock holds them back (counted where they are
        // sent: a datagram already on its way may still arrive; one sent as the pause came
        // may still be counted).
        sender.setPaused(true)
        let sentAtPause = sender.packetsSent
        try await Task.sleep(nanoseconds: 1_200_000_000)
        #expect(sender.packetsSent <= sentAtPause + 1, "\(sender.packetsSent - sentAtPause) sent while paused")
    }
}
