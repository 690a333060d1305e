import DualCamNet
import DualCamProtocol
import Foundation
import Testing

/// mDNS may resolve an agent to either address family, whichever the resolver answers
/// first (CI resolved the demo's loopback agent to ::1); the default listener takes both.
@Suite struct DualStackTests {
    @Test func theDefaultListenerAnswersOnIPv4AndIPv6Loopback() async throws {
        let ipv6 = (try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8))?
            .contains("00000000000000000000000000000001") ?? false
        let state = NSTemporaryDirectory() + "dualcam-coord-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let identity = try DeviceIdentity.loadOrCreate(in: state, commonName: "dualcam-coordinator")
        let agent = try await RunningAgent.start(name: "both", trusting: [identity.deviceID], listenHost: "::")
        for host in ipv6 ? ["127.0.0.1", "::1"] : ["127.0.0.1"] {
            let channel = try await TLSTransport.connect(host: host, port: agent.port, identity: identity,
                                                         expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
            let ack = try await Exchange.first(on: channel, after: .hello(Exchange.hello()))
            #expect(ack.helloAck.nodeName == "both", "through \(host)")
        }
        await agent.stop()
    }
}
