import DualCamNet
import DualCamProtocol
import Foundation
import NIOCore
import Testing

/// Real TLS over loopback: both sides present certificates, both pin.
@Suite(.serialized) struct TLSTransportTests {
    static let agent = try! DeviceIdentity.generate(commonName: "test-agent")
    static let coordinator = try! DeviceIdentity.generate(commonName: "test-coordinator")

    /// Starts an agent-side listener that answers every Hello with a HelloAck.
    func withAgent(trusting trusted: Set<DeviceID>, identity: DeviceIdentity = agent,
                   _ body: (Int, @Sendable () -> [String]) async throws -> Void) async throws {
        let refusals = RefusalLog()
        let server = try await TLSTransport.listen(
            host: "127.0.0.1", port: 0, identity: identity, policy: PeerPolicy(trusted: trusted),
            clock: { MonotonicTime.now() }, onRefused: { refusals.add($0) })
        let port = try #require(server.channel.localAddress?.port)
        let serving = Task {
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    try? await connection.channel.executeThenClose { inbound, outbound in
                        for try await received in inbound {
                            if case .hello = received.envelope.body {
                                var ack = Dualcam_V1_HelloAck()
                                ack.version = WireProtocol.version
                                ack.nodeName = "test-agent"
                                var reply = Dualcam_V1_Envelope()
                                reply.helloAck = ack
                                try await outbound.write(reply)
                            }
                        }
                    }
                }
            }
        }
        // Closing the listener ends the accept loop after it has finished every
        // connection it was handed (an unfinished async channel would trap).
        do {
            try await body(port, { refusals.all })
        } catch {
            server.channel.close(promise: nil)
            _ = await serving.result
            throw error
        }
        server.channel.close(promise: nil)
        _ = await serving.result
    }

    @Test func pinnedPeersTalk() async throws {
        try await withAgent(trusting: [Self.coordinator.deviceID]) { port, _ in
            let channel = try await TLSTransport.connect(
                host: "127.0.0.1", port: port, identity: Self.coordinator, expectedPeer: Self.agent.deviceID,
                clock: { MonotonicTime.now() })
            try await channel.executeThenClose { inbound, outbound in
                var hello = Dualcam_V1_Envelope()
                hello.hello = Dualcam_V1_Hello()
                try await outbound.write(hello)
                var iterator = inbound.makeAsyncIterator()
                let reply = try #require(try await iterator.next())
                #expect(reply.envelope.helloAck.nodeName == "test-agent")
            }
        }
    }

    @Test func coordinatorRefusesAnAgentWithAnotherID() async throws {
        try await withAgent(trusting: [Self.coordinator.deviceID]) { port, _ in
            let other = try DeviceIdentity.generate(commonName: "someone-else")
            await #expect(throws: TransportError.self) {
                _ = try await TLSTransport.connect(
                    host: "127.0.0.1", port: port, identity: Self.coordinator, expectedPeer: other.deviceID,
                    clock: { MonotonicTime.now() })
            }
        }
    }

    @Test func agentRefusesAnUnpairedCoordinator() async throws {
        let stranger = try DeviceIdentity.generate(commonName: "stranger")
        try await withAgent(trusting: [Self.coordinator.deviceID]) { port, refusals in
            // TLS 1.3: the client may finish its handshake before the server rejects its
            // certificate; the rejection then arrives as an alert or a close on the first read.
            var received = false
            var failure: Error?
            do {
                let channel = try await TLSTransport.connect(
                    host: "127.0.0.1", port: port, identity: stranger, expectedPeer: Self.agent.deviceID,
                    clock: { MonotonicTime.now() })
                try await channel.executeThenClose { inbound, outbound in
                    var hello = Dualcam_V1_Envelope()
                    hello.hello = Dualcam_V1_Hello()
                    try await outbound.write(hello)
                    for try await _ in inbound { received = true }
                }
            } catch {
                failure = error
            }
            #expect(!received, "an unpaired coordinator got an answer")
            let advice = TLSTransport.explain(failure, receivedAnything: received, host: "127.0.0.1", port: port,
                                              identity: stranger)
            #expect(advice.contains("not paired"), "\(advice)")
            // The agent's side names the refused device.
            for _ in 0..<50 where refusals().isEmpty { try await Task.sleep(nanoseconds: 20_000_000) }
            #expect(refusals().contains { $0.contains(stranger.deviceID.description) && $0.contains("not paired") })
        }
    }

    @Test func expiredCertificateIsRefused() async throws {
        let expired = try DeviceIdentity.generate(commonName: "old", notBefore: Date(timeIntervalSinceNow: -400 * 86400),
                                                  validity: 365 * 86400)
        try await withAgent(trusting: [Self.coordinator.deviceID], identity: expired) { port, _ in
            do {
                _ = try await TLSTransport.connect(
                    host: "127.0.0.1", port: port, identity: Self.coordinator, expectedPeer: expired.deviceID,
                    clock: { MonotonicTime.now() })
                Issue.record("an expired certificate was accepted")
            } catch let error as TransportError {
                #expect(error.description.contains("expired"))
            }
        }
    }
}

final class RefusalLog: @unchecked Sendable {
    // Invariant: `items` is touched only under `lock`.
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.withLock { items.append(s) } }
    var all: [String] { lock.withLock { items } }
}
