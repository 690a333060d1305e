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

    /// Opens the agent's window through its control socket, as `dualcam-agent pair` does;
    /// returns the code it shows.
    func openWindow(_ agent: RunningAgent) async throws -> (Task<Void, Error>, NIOLockedValueBox<[String]>, String) {
        let lines = NIOLockedValueBox<[String]>([])
        let task = Task {
            try await ControlSocket.requestPairing(stateDirectory: agent.stateDirectory, seconds: 30) { line in
                lines.withLockedValue { $0.append(line) }
            }
        }
        for _ in 0..<250 where !lines.withLockedValue({ $0.contains { $0.hasPrefix("opened") } }) {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let opened = try #require(lines.withLockedValue { $0.first })
        #expect(opened.hasPrefix("opened 30\t"), "\(opened)")
        let code = String(opened.split(separator: "\t").last ?? "")
        #expect(PairingCode.normalized(code) == code, "\(opened)")
        return (task, lines, code)
    }

    /// A TLS connection that trusts whatever agent answers, as pairing does before it pins.
    func connectAsStranger(_ agent: RunningAgent, _ identity: DeviceIdentity) async throws -> (EnvelopeChannel, DeviceID) {
        try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: identity,
                                       policy: PeerPolicy(isTrusted: { _ in true }), clock: { MonotonicTime.now() })
    }

    @Test func theCodeTheAgentShowsPairsBothSides() async throws {
        let agent = try await RunningAgent.start(name: "pi-guest")
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let (window, lines, code) = try await openWindow(agent)
        let pairer = AgentPairer(identity: identity, coordinatorName: "laptop", paired: paired)
        let entry = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: agent.identity.deviceID) { name in
            #expect(name == "pi-guest")
            return code
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

    @Test func aWrongCodePairsNothing() async throws {
        let agent = try await RunningAgent.start()
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let (window, lines, code) = try await openWindow(agent)
        let wrong = PairingCode.normalized(String(code.map { $0 == " " ? " " : ($0 == "9" ? "0" : "9") }))!
        let pairer = AgentPairer(identity: identity, coordinatorName: "laptop", paired: paired)
        do {
            _ = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: nil) { _ in wrong }
            Issue.record("a wrong code paired")
        } catch {
            // The person at the laptop hears how many tries the window has left.
            #expect("\(error)".contains("does not match") && "\(error)".contains("4 attempts left in this window"), "\(error)")
        }
        #expect(paired.trusted().isEmpty)
        #expect(PairedDevices(stateDirectory: agent.stateDirectory).trusted().isEmpty)
        #expect(await agent.log.waitFor(["pairing attempt by coordinator", "wrong code", "4 attempts left"]))
        let declined = { lines.withLockedValue { $0 }.contains { $0.hasPrefix("declined laptop") && $0.hasSuffix("\t4") } }
        for _ in 0..<250 where !declined() { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(declined(), "\(lines.withLockedValue { $0 })")
        window.cancel()
        await agent.stop()
    }

    /// The attack that got through before: a client that sends the agent a confirmation
    /// without knowing the code (an empty proof, then made-up ones), and one that guesses
    /// codes. Each is refused; after five tries the window closes with the reason in the
    /// journal, and the right code no longer pairs until someone opens a new window.
    @Test func clientsWithoutTheCodeAreRefusedAndGuessingClosesTheWindow() async throws {
        let agent = try await RunningAgent.start()
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let (window, lines, code) = try await openWindow(agent)
        let (channel, agentID) = try await connectAsStranger(agent, identity)
        var exchange = CoordinatorPairing(agent: agentID, coordinator: identity.deviceID, code: "000 000")
        var forged = Dualcam_V1_PairConfirm()
        forged.proof = Data(repeating: 0xAB, count: 32)
        let replies = try await Exchange.all(on: channel, sending: [.hello(Exchange.hello()),
                                                                   try exchange.start(coordinatorName: "intruder"),
                                                                   .pairConfirm(forged)])
        let results = replies.compactMap { r -> Dualcam_V1_PairResult? in
            if case .pairResult(let p)? = r.body { p } else { nil }
        }
        let result = try #require(results.first, "\(replies)")
        #expect(!result.paired)
        #expect(PairedDevices(stateDirectory: agent.stateDirectory).trusted().isEmpty)

        let pairer = AgentPairer(identity: identity, coordinatorName: "guesser", paired: paired)
        var guesses = 0
        for guess in 0..<10 {
            let candidate = PairingCode.normalized(String(format: "%06d", guess))!
            if candidate == code { continue }
            guesses += 1
            do {
                _ = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: nil) { _ in candidate }
                Issue.record("paired with a guessed code")
            } catch {
                if guesses > 4 { #expect("\(error)".contains("no attempts are left") || "\(error)".contains("window"), "\(error)") }
            }
            if guesses == 5 { break }
        }
        #expect(await agent.log.waitFor(["closed after 5 attempts with a wrong code"]))
        // Spent: even the right code is refused now.
        await #expect(throws: PairingError.self) {
            _ = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: nil) { _ in code }
        }
        #expect(PairedDevices(stateDirectory: agent.stateDirectory).trusted().isEmpty)
        #expect(paired.trusted().isEmpty)
        _ = await window.result
        #expect(lines.withLockedValue { $0.last ?? "" }.contains("closed after 5 attempts"))
        await agent.stop()
    }

    @Test func withTheWindowClosedAnUnpairedCoordinatorIsRefusedOnBothSides() async throws {
        let agent = try await RunningAgent.start()
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let pairer = AgentPairer(identity: identity, coordinatorName: "laptop", paired: paired)
        do {
            _ = try await pairer.pair(host: "127.0.0.1", port: agent.port, expected: nil) { _ in "123 456" }
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
        let (window, _, _) = try await openWindow(agent)
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

    /// A coordinator of protocol 1.8 speaks pairing version 2 (CPace on X25519): told, in
    /// answer to its Hello and before anyone types a code, which versions meet and what to
    /// update; the window keeps all its attempts, and the right code still pairs after.
    @Test func anOlderCoordinatorIsToldBothPairingVersionsBeforeTheCode() async throws {
        let agent = try await RunningAgent.start(name: "pi-guest")
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let (window, _, code) = try await openWindow(agent)
        let (channel, _) = try await connectAsStranger(agent, identity)
        var hello = Exchange.hello()
        hello.version.minor = 8
        hello.nodeName = "old-laptop"
        let reply = try await Exchange.first(on: channel, after: .hello(hello))
        #expect(reply.error.code == .errorVersionMismatch && reply.error.fatal, "\(reply)")
        #expect(reply.error.message == "dualcam-coordinator on old-laptop pairs with pairing version 2 (protocol 1.8) and this "
                + "agent (pi-guest) with pairing version 3 (protocol \(WireProtocol.major).\(WireProtocol.minor)): "
                + "update dualcam-coordinator on old-laptop, then pair again", "\(reply.error.message)")
        let entry = try await AgentPairer(identity: identity, coordinatorName: "laptop", paired: paired)
            .pair(host: "127.0.0.1", port: agent.port, expected: agent.identity.deviceID) { _ in code }
        #expect(entry.name == "pi-guest")
        _ = await window.result
        await agent.stop()
    }

    /// Pairings stored before pairing version 3 stay valid: a paired.json as earlier
    /// releases wrote it lets its coordinator in for a session, with no pairing again.
    @Test func pairingsStoredByEarlierReleasesStayValid() async throws {
        let agent = try await RunningAgent.start(name: "pi-guest")
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let (identity, paired) = try coordinator()
        let written = """
            [
              {
                "deviceID" : "\(identity.deviceID)",
                "name" : "laptop",
                "pairedAt" : "2026-11-20T09:30:00Z",
                "role" : "coordinator"
              }
            ]
            """
        try Data(written.utf8).write(to: URL(fileURLWithPath: PairedDevices(stateDirectory: agent.stateDirectory).path))
        let laptopSide = written.replacingOccurrences(of: "\(identity.deviceID)", with: "\(agent.identity.deviceID)")
            .replacingOccurrences(of: "laptop", with: "pi-guest").replacingOccurrences(of: "coordinator", with: "guest")
        try Data(laptopSide.utf8).write(to: URL(fileURLWithPath: paired.path))
        #expect(paired.trusted() == [agent.identity.deviceID])
        let channel = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: identity,
                                                     expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        let ack = try await Exchange.first(on: channel, after: .hello(Exchange.hello()))
        #expect(ack.helloAck.nodeName == "pi-guest", "\(ack)")
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
        #expect(reply.error.message.contains("\(WireProtocol.major + 1).\(WireProtocol.minor)") && reply.error.message.contains("\(WireProtocol.major).\(WireProtocol.minor)"),
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

/// A paired coordinator that connects again (its old connection stale after a pulled
/// cable or a restart) replaces its old connection at once instead of queueing behind it;
/// before, it waited for the stale one to time out and `start` wrongly said to pair again.
@Suite(.serialized) struct StaleConnectionTests {
    @Test func aReconnectingCoordinatorReplacesItsStaleConnection() async throws {
        let coordinatorState = NSTemporaryDirectory() + "dualcam-coord-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: coordinatorState) }
        let identity = try DeviceIdentity.loadOrCreate(in: coordinatorState, commonName: "dualcam-coordinator")
        let agent = try await RunningAgent.start(trusting: [identity.deviceID])
        let stale = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: identity,
                                                   expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        // The first connection says Hello and is served; then it goes quiet.
        let first = Task {
            try await stale.executeThenClose { inbound, outbound in
                try await EnvelopeWriter(outbound).send(.hello(Exchange.hello()))
                var replies = 0
                for try await received in inbound where !Exchange.isChatter(received.envelope.body) { replies += 1 }
                return replies
            }
        }
        #expect(await agent.log.waitFor(["coordinator test-coordinator connected"]))
        let started = Date()
        let fresh = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: identity,
                                                   expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        let ack = try await Exchange.first(on: fresh, after: .hello(Exchange.hello()))
        #expect(ack.helloAck.nodeName == "test-agent")
        // Answered at once, not after the stale connection's 10 s idle timeout.
        #expect(Date().timeIntervalSince(started) < 5, "the new connection waited \(Date().timeIntervalSince(started)) s")
        #expect(await agent.log.waitFor(["connected again: its previous connection is closed"]))
        _ = try? await first.value
        await agent.stop()
    }

    /// A second paired coordinator is told at once that another one holds the agent (it
    /// waited silently behind it, and its `start` then timed out); the first keeps its
    /// connection.
    @Test func aSecondCoordinatorIsToldTheAgentIsBusy() async throws {
        let root = NSTemporaryDirectory() + "dualcam-coords-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try DeviceIdentity.loadOrCreate(in: root + "/a", commonName: "dualcam-coordinator")
        let second = try DeviceIdentity.loadOrCreate(in: root + "/b", commonName: "dualcam-coordinator")
        let agent = try await RunningAgent.start(trusting: [first.deviceID, second.deviceID])
        let held = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: first,
                                                  expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        let (stillServed, serve) = AsyncStream.makeStream(of: Bool.self)
        let holder = Task {
            try await held.executeThenClose { inbound, outbound in
                let out = EnvelopeWriter(outbound)
                try await out.send(.hello(Exchange.hello()))
                var iterator = inbound.makeAsyncIterator()
                while let received = try await iterator.next() {
                    if case .helloAck? = received.envelope.body { break }
                }
                // Wait for the other coordinator's refusal; then this link must still carry the
                // agent's clock pings (the agent measures its clock against ours).
                for await _ in stillServed { break }
                try await Task.sleep(nanoseconds: 1_000_000_000)
                guard held.channel.isActive else { return false }
                while let received = try await iterator.next() {
                    if case .clockPing? = received.envelope.body { return true }
                }
                return false
            }
        }
        #expect(await agent.log.waitFor(["coordinator test-coordinator connected"]))
        let other = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: second,
                                                   expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        let reply = try await Exchange.first(on: other, after: .hello(Exchange.hello()))
        #expect(reply.error.code == .errorBusy && reply.error.fatal, "\(reply)")
        #expect(reply.error.message.contains(first.deviceID.description), "\(reply.error.message)")
        serve.yield(true)
        #expect(try await holder.value, "the first coordinator lost its connection")
        await agent.stop()
    }
}
