import DualCamCore
import DualCamNet
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Steers a Pi camera module that `rpicam-vid --sync client` reads onto the shared frame
/// grid: every `PiSyncFeeder.intervalNanoseconds` it sends that client, on this host, a
/// packet saying where a frame of our grid falls on the Pi's wall clock (`PiSyncFeeder`).
/// Only to 127.0.0.1: the client listens on every address, and a packet from anywhere
/// steers it, so docs/RASPBERRY-PI.md says to keep the port closed to the network.
/// Before any coordinator has given a clock estimate the grid is the node's own clock's, so
/// that the client, which holds every frame back until its first packet, delivers from the
/// start; the estimate then moves the grid once. Nothing is sent after a take asked for no
/// phase lock (until a take asks for it again or its coordinator goes): the camera runs free.
final class PiSyncSender: Sendable {
    private let feeder: PiSyncFeeder
    private let port: Int
    private let logger: Logger
    private let paused = NIOLockedValueBox(false)
    private let sent = NIOLockedValueBox(0)

    init(rate: FrameRate, port: Int, logger: Logger) {
        (self.feeder, self.port, self.logger) = (PiSyncFeeder(rate: rate), port, logger)
    }

    /// A Prepare's `--no-phase-lock` holds the packets back; the next Prepare without it,
    /// or its coordinator's going, lets them go again.
    func setPaused(_ on: Bool) { paused.withLockedValue { $0 = on } }

    var packetsSent: Int { sent.withLockedValue { $0 } }

    /// Sends, on `clock`'s grid, until the task is cancelled.
    func run(clock: AgentClock) async {
        let channel: Channel
        let client: SocketAddress
        do {
            client = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0).get()
        } catch {
            logger.error("cannot send the frame grid to rpicam-vid (--pi-sync-port \(port)): \(error); the camera runs free")
            return
        }
        defer { channel.close(promise: nil) }
        logger.info("steering the Pi camera onto the shared frame grid: rpicam-vid --sync client on UDP port \(port)")
        while !Task.isCancelled {
            // Each packet an interval after the last was made, not on a fixed cadence: a
            // task held up must not send two at once, or the client would correct twice
            // before its first correction landed.
            do { try await clock.source.sleep(nanoseconds: feeder.intervalNanoseconds) } catch { return }
            guard !paused.withLockedValue({ $0 }) else { continue }
            let envelope = AddressedEnvelope(remoteAddress: client, data: channel.allocator.buffer(bytes: packetNow(clock).bytes))
            // Lost or refused (nobody listening yet): the next one comes a few frames later.
            channel.writeAndFlush(envelope, promise: nil)
            sent.withLockedValue { $0 += 1 }
        }
    }

    /// Where the wall clock stands against the shared clock now, read between two
    /// monotonic readings so that the pair belongs to one instant.
    private func packetNow(_ clock: AgentClock) -> PiSyncPacket {
        let before = clock.source.now
        let wall = MonotonicTime.wallNanoseconds()
        let after = clock.source.now
        let local = LocalInstant(nanoseconds: clock.simulatedError.local(fromTrue: before + (after - before) / 2))
        // Before any estimate the grid is the node's own clock's (see above).
        let shared = (clock.estimate?.shared(fromLocal: local) ?? SharedInstant(unsynchronised: local)).nanoseconds
        return feeder.packet(nowShared: shared, wallMinusSharedNanoseconds: wall - shared)
    }
}
