import DualCamAgent
import DualCamCoordinator
import DualCamNet
import DualCamProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Pairing end to end over real TLS on loopback: a real agent server, its control socket,
/// and the coordinator's pairer.
@Suite(.serialized) struct PairingTests {
    let coordinatorState = NSTemporaryDirectory() + "dualcam-coord-\(UUID().uuidString)"

    func coordinator() throws -> (DeviceIdentity, PairedDevices) {
        (try DeviceIdentity.loadOrCreate(in: coordinatorState, commonName: "dualcam-coordinator"),
         PairedDevices(stateDirectory: coordinatorState))
    }

    /// Opens the agent's window through its control socket, as `dualcam-agent pair` does.
    func openWindow(_ agent: RunningAgent) async throws -> (Task<Void, Error>, NIOLockedValueBox<[String]>) {
        let lines = NIOLockedValueBox<[String]>([])
        let task = Task {
            try await ControlSocket.requestPairing(stateDirectory: agent.stateDirectory, seconds: 30) { line in
                lines.withLockedValue { $0.append(line) }
            }
        }
        for _ in 0..<250 where !lines.withLockedValue({ $0.contains { $0.hasPrefix("opened") } }) {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(lines.withLockedValue { $0.first } == "opened 30")
        return (task, lines)
    }

    @Test func theCodeTheAgentShowsPairsBothSides() async throws {
        let agent = try await RunningAgent.start(name: "pi-guest")
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let (window, lines) = try await openWindow(agent)
        let pairer = AgentPairer(identity: identity, coordinatorName: "laptop", paired: paired)
        let entry = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: agent.identity.deviceID) { code, name in
            #expect(name == "pi-guest")
            // What the person reads off the agent: the code line of its pairing window
            // (which may reach the terminal a moment after the coordinator derived its own).
            for _ in 0..<250 {
                if let shown = lines.withLockedValue({ $0.first { $0.hasPrefix("code ") } }) {
                    return shown.dropFirst(5).prefix(7) == code
                }
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
            return false
        }
        #expect(entry.name == "pi-guest" && entry.role == "guest")
        #expect(paired.trusted() == [agent.identity.deviceID])
        #expect(PairedDevices(stateDirectory: agent.stateDirectory).trusted() == [identity.deviceID])
        _ = await window.result
        #expect(lines.withLockedValue { $0 }.contains { $0.hasPrefix("paired laptop") })
        #expect(lines.withLockedValue { $0.last?.hasPrefix("closed") } == true)

        // Now a session connection is let in and answered.
        let channel = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: identity,
                                                     expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        let ack = try await Exchange.first(on: channel, after: .hello(Exchange.hello()))
        #expect(ack.helloAck.nodeName == "pi-guest")
        await agent.stop()
    }

    @Test func aCodeThatDoesNotMatchPairsNothing() async throws {
        let agent = try await RunningAgent.start()
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let (window, _) = try await openWindow(agent)
        let pairer = AgentPairer(identity: identity, coordinatorName: "laptop", paired: paired)
        await #expect(throws: PairingError.self) {
            _ = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: nil) { _, _ in false }
        }
        #expect(paired.trusted().isEmpty)
        #expect(PairedDevices(stateDirectory: agent.stateDirectory).trusted().isEmpty)
        window.cancel()
        await agent.stop()
    }

    @Test func withTheWindowClosedAnUnpairedCoordinatorIsRefusedOnBothSides() async throws {
        let agent = try await RunningAgent.start()
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let pairer = AgentPairer(identity: identity, coordinatorName: "laptop", paired: paired)
        do {
            _ = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: nil) { _, _ in true }
            Issue.record("paired without a window")
        } catch let error as PairingError {
            #expect(error.description.contains("dualcam-agent pair"), "\(error)")
        }
        #expect(await agent.log.waitFor(["refused a coordinator", identity.deviceID.description, "not paired"]))
        #expect(PairedDevices(stateDirectory: agent.stateDirectory).trusted().isEmpty)
        await agent.stop()
    }

    /// Let in only to pair, a coordinator that asks for anything else gets NOT_PAIRED and
    /// nothing happens: no session, no spool.
    @Test func aPairingConnectionCarriesNothingButPairing() async throws {
        let agent = try await RunningAgent.start()
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, _) = try coordinator()
        let (window, _) = try await openWindow(agent)
        let (channel, _) = try await TLSTransport.connect(
            host: "127.0.0.1", port: agent.port, identity: identity,
            policy: PeerPolicy(trusted: [agent.identity.deviceID]), clock: { MonotonicTime.now() })
        var prepare = Dualcam_V1_Prepare()
        prepare.sessionID = "intruder"
        let replies = try await Exchange.all(on: channel, sending: [.hello(Exchange.hello()), .prepare(prepare)])
        let errors = replies.compactMap { reply -> Dualcam_V1_Error? in
            if case .error(let e)? = reply.body { e } else { nil }
        }
        let error = try #require(errors.first)
        #expect(error.code == .errorNotPaired && error.fatal)
        #expect(error.message.contains("dualcam-coordinator pair"))
        #expect(!replies.contains { if case .ready? = $0.body { true } else { false } })
        #expect(!FileManager.default.fileExists(atPath: agent.stateDirectory + "/spool/intruder"))
        window.cancel()
        await agent.stop()
    }

    @Test func aMajorVersionMismatchIsRefusedNamingBothVersions() async throws {
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, _) = try coordinator()
        let agent = try await RunningAgent.start(trusting: [identity.deviceID])
        let channel = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: identity,
                                                     expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        var hello = Exchange.hello()
        hello.version.major = WireProtocol.major + 1
        let reply = try await Exchange.first(on: channel, after: .hello(hello))
        #expect(reply.error.code == .errorVersionMismatch)
        #expect(reply.error.message.contains("\(WireProtocol.major + 1).0") && reply.error.message.contains("\(WireProtocol.major).\(WireProtocol.minor)"),
                "\(reply.error.message)")
        await agent.stop()
    }
}

/// Small request/reply helpers over an envelope channel.
enum Exchange {
    static func hello() -> Dualcam_V1_Hello {
        var hello = Dualcam_V1_Hello()
        hello.version = WireProtocol.version
        hello.nodeName = "test-coordinator"
        return hello
    }

    /// Sends `body` and returns the first reply that is not a keepalive, clock message or telemetry.
    static func first(on channel: EnvelopeChannel, after body: Dualcam_V1_Envelope.OneOf_Body) async throws -> Dualcam_V1_Envelope {
        try await channel.executeThenClose { inbound, outbound in
            try await EnvelopeWriter(outbound).send(body)
            for try await received in inbound where !isChatter(received.envelope.body) { return received.envelope }
            throw TransportError("closed without a reply")
        }
    }

    /// Sends every body, then collects replies until the agent closes (or 5 s pass).
    static func all(on channel: EnvelopeChannel, sending bodies: [Dualcam_V1_Envelope.OneOf_Body]) async throws -> [Dualcam_V1_Envelope] {
        try await channel.executeThenClose { inbound, outbound in
            let out = EnvelopeWriter(outbound)
            for body in bodies { try await out.send(body) }
            var replies: [Dualcam_V1_Envelope] = []
            let deadline = Task {
                try await Task.sleep(nanoseconds: 5_000_000_000)
                outbound.finish()
            }
            defer { deadline.cancel() }
            do {
                for try await received in inbound where !isChatter(received.envelope.body) { replies.append(received.envelope) }
            } catch {
                // The agent closing after a fatal error may surface as a TLS error.
            }
            return replies
        }
    }

    static func isChatter(_ body: Dualcam_V1_Envelope.OneOf_Body?) -> Bool {
        switch body {
        case .keepalive?, .clockPing?, .clockStatus?, .telemetry?: true
        default: false
        }
    }
}
