@testable import DualCamNet
import DualCamProtocol
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// What a hostile or broken peer can do to a listening agent: garbage instead of TLS,
/// frames over the limit, bytes trickled one a second. Each must end in a closed
/// connection, and the listener must go on serving.
@Suite(.serialized) struct TLSAbuseTests {
    static let agent = try! DeviceIdentity.generate(commonName: "abuse-agent")
    static let coordinator = try! DeviceIdentity.generate(commonName: "abuse-coordinator")

    /// A listener like the agent's, echoing HelloAck; returns its port and a stopper.
    func listen(idle: TimeAmount = TLSTransport.idleTimeout, admission: ConnectionAdmission = ConnectionAdmission())
        async throws -> (Int, @Sendable () async -> Void) {
        let server = try await TLSTransport.listen(
            host: "127.0.0.1", port: 0, identity: Self.agent, policy: PeerPolicy(trusted: [Self.coordinator.deviceID]),
            admission: admission, clock: { MonotonicTime.now() }, onRefused: { _ in })
        let port = try #require(server.channel.localAddress?.port)
        let serving = Task {
            try await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask {
                            try? await connection.channel.executeThenClose { inbound, outbound in
                                for try await received in inbound {
                                    guard case .hello = received.envelope.body else { continue }
                                    var reply = Dualcam_V1_Envelope()
                                    reply.helloAck = Dualcam_V1_HelloAck()
                                    try await outbound.write(reply)
                                }
                            }
                        }
                    }
                }
            }
        }
        return (port, {
            server.channel.close(promise: nil)
            _ = await serving.result
        })
    }

    /// A raw client: plain TCP, or TLS with the coordinator's identity but sending bytes
    /// of our choosing. Returns the channel and a future that completes when it closes.
    func rawClient(port: Int, tls: Bool, from source: String? = nil) async throws -> Channel {
        let context = try TLSTransport.clientContext(identity: Self.coordinator)
        let handshake = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: context, serverHostname: nil) { _, promise in
                                promise.succeed(.certificateVerified)
                            })
                        try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
                    }
                }
            }
            .bind(to: try source.map { try SocketAddress(ipAddress: $0, port: 0) } ?? SocketAddress(ipAddress: "0.0.0.0", port: 0))
            .connect(host: "127.0.0.1", port: port).get()
        if tls { try await handshake.futureResult.get() } else { handshake.succeed(()) }
        return channel
    }

    /// Seconds until the channel is closed by the peer, or nil if still open after `limit`.
    func secondsUntilClosed(_ channel: Channel, limit: Double, while feeding: (@Sendable () -> Void)? = nil) async -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if !channel.isActive { return Date().timeIntervalSince(start) }
            feeding?()
            try? await Task.sleep(nanoseconds: 1_000_000_000)
        }
        return channel.isActive ? nil : Date().timeIntervalSince(start)
    }

    func assertStillServes(port: Int) async throws {
        let channel = try await TLSTransport.connect(host: "127.0.0.1", port: port, identity: Self.coordinator,
                                                     expectedPeer: Self.agent.deviceID, clock: { MonotonicTime.now() })
        try await channel.executeThenClose { inbound, outbound in
            var hello = Dualcam_V1_Envelope()
            hello.hello = Dualcam_V1_Hello()
            try await outbound.write(hello)
            var iterator = inbound.makeAsyncIterator()
            let reply = try await iterator.next()
            #expect(reply?.envelope.body.map { if case .helloAck = $0 { true } else { false } } == true)
        }
    }

    @Test func garbageInsteadOfTLSIsDropped() async throws {
        let (port, stop) = try await listen()
        let channel = try await rawClient(port: port, tls: false)
        var garbage = ByteBuffer()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<65536 { garbage.writeInteger(UInt8.random(in: 0...255, using: &random)) }
        // The agent may close before all 64 KiB are written: the write then fails, which
        // is the outcome wanted; the check below sees the channel closed.
        try? await channel.writeAndFlush(garbage)
        let closedAfter = await secondsUntilClosed(channel, limit: 5)
        #expect(closedAfter != nil, "garbage kept the connection open")
        try await assertStillServes(port: port)
        await stop()
    }

    @Test func aFrameOverTheLimitIsRefused() async throws {
        let (port, stop) = try await listen()
        let channel = try await rawClient(port: port, tls: true)
        var header = ByteBuffer()
        header.writeInteger(UInt32(WireProtocol.maxFrameBytes + 1))
        header.writeBytes([UInt8](repeating: 0, count: 1024))
        try await channel.writeAndFlush(header)
        let closedAfter = await secondsUntilClosed(channel, limit: 5)
        #expect(closedAfter != nil, "an oversize length prefix kept the connection open")
        try await assertStillServes(port: port)
        await stop()
    }

    /// A flood of idle TCP connections (1100 of them exhausted an agent at 1024 open
    /// files, and its next recording failed): past the limits per address and in all, the
    /// oldest strangers are closed to make room, and the paired coordinator, connecting
    /// from a flooded address, still gets in and is answered, then counts against neither
    /// limit.
    @Test func idleConnectionsAreCappedAndThePairedCoordinatorStillGetsIn() async throws {
        let admission = ConnectionAdmission(limits: .init(perAddress: 4, total: 10))
        let (port, stop) = try await listen(admission: admission)
        var clients: [Channel] = []
        for source in ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"] {
            for _ in 0..<40 { clients.append(try await rawClient(port: port, tls: false, from: source)) }
        }
        try await Task.sleep(nanoseconds: 500_000_000)
        let open = clients.filter(\.isActive).count
        #expect(open <= 10, "\(open) idle connections held open")
        #expect(admission.held <= 10)
        let fromFirst = clients.prefix(40).filter(\.isActive).count
        #expect(fromFirst <= 4, "\(fromFirst) held from one address")
        try await assertStillServes(port: port)
        #expect(admission.held <= 10, "the paired coordinator took a stranger's place")
        for client in clients { try? await client.close() }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(admission.held == 0, "closed connections keep their places")
        await stop()
    }

    /// A paired peer that sends a valid frame one byte a second never completes a frame
    /// in time and is dropped after the idle timeout, though bytes keep arriving.
    @Test func aTricklingPeerIsDropped() async throws {
        let (port, stop) = try await listen()
        let channel = try await rawClient(port: port, tls: true)
        var hello = Dualcam_V1_Envelope()
        hello.hello = Dualcam_V1_Hello()
        hello.hello.nodeName = String(repeating: "x", count: 64)
        let bytes = try EnvelopeFraming.encode(hello)
        let sent = ManagedCounter()
        let closedAfter = await secondsUntilClosed(channel, limit: 20) {
            let n = sent.next()
            guard n < bytes.count else { return }
            channel.writeAndFlush(ByteBuffer(bytes: [bytes[n]]), promise: nil)
        }
        let seconds = try #require(closedAfter, "a trickling peer was still connected after 20 s")
        let limit = Double(TLSTransport.idleTimeout.nanoseconds) / 1e9
        #expect(seconds >= limit - 1 && seconds <= limit + 2, "dropped after \(seconds) s")
        #expect(sent.value < bytes.count, "the frame completed; the test proves nothing")
        try await assertStillServes(port: port)
        await stop()
    }
}

final class ManagedCounter: @unchecked Sendable {
    // Invariant: `count` is touched only under `lock`.
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.withLock { defer { count += 1 }; return count } }
    var value: Int { lock.withLock { count } }
}
