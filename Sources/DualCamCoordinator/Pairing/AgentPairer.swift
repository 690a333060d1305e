import DualCamNet
import DualCamProtocol
import Foundation

/// Pairs this coordinator with one agent whose pairing window is open (PROTOCOL.md §13).
public struct AgentPairer: Sendable {
    public let identity: DeviceIdentity
    public let coordinatorName: String
    public let paired: PairedDevices

    public init(identity: DeviceIdentity, coordinatorName: String, paired: PairedDevices) {
        self.identity = identity
        self.coordinatorName = coordinatorName
        self.paired = paired
    }

    /// Connects to `host:port` (pinning `expected` when discovery told us the agent's ID),
    /// runs the exchange, asks `confirm` whether the agent shows the same code, and on
    /// success pins the agent. Returns the entry written.
    public func pair(host: String, port: Int, expected: DeviceID?,
                     confirm: @escaping @Sendable (_ code: String, _ agentName: String) async -> Bool) async throws
        -> PairedDevices.Entry {
        let policy = PeerPolicy(isTrusted: { expected == nil || $0 == expected })
        let (channel, agentID) = try await TLSTransport.connect(
            host: host, port: port, identity: identity, policy: policy, clock: { MonotonicTime.now() })
        var receivedAnything = false
        do {
            return try await channel.executeThenClose { inbound, outbound in
                let out = EnvelopeWriter(outbound)
                let keepalive = out.keepalives()
                defer { keepalive.cancel() }
                var hello = Dualcam_V1_Hello()
                hello.version = WireProtocol.version
                hello.software = "dualcam-coordinator 0.1.0"
                hello.nodeName = coordinatorName
                try await out.send(.hello(hello))
                var exchange = CoordinatorPairing(agent: agentID, coordinator: identity.deviceID)
                var agentName = ""
                var role = Dualcam_V1_Role.unspecified
                for try await received in inbound {
                    receivedAnything = true
                    switch received.envelope.body {
                    case .helloAck(let ack):
                        agentName = ack.nodeName
                        role = ack.role
                        try await out.send(exchange.start(coordinatorName: coordinatorName))
                        continue
                    case .keepalive, .none:
                        continue
                    case .error(let error) where error.code == .errorVersionMismatch:
                        throw PairingError(error.message)
                    case .some(let body):
                        for step in try exchange.receive(body) {
                            switch step {
                            case .send(let reply):
                                try await out.send(reply)
                            case .confirmCode(let code, let name, let revealedRole):
                                if !name.isEmpty { agentName = name }
                                if revealedRole != .unspecified { role = revealedRole }
                                let matches = await confirm(code, agentName)
                                try await out.send(exchange.confirm(codesMatch: matches))
                            case .paired:
                                let entry = PairedDevices.Entry(deviceID: agentID, name: agentName, role: role.name,
                                                                pairedAt: Date())
                                try paired.add(entry)
                                return entry
                            case .refused(let why):
                                throw PairingError("\(agentName.isEmpty ? "the agent" : agentName) did not pair: \(why)")
                            }
                        }
                    }
                }
                throw PairingError("the agent at \(host):\(port) closed the connection during pairing")
            }
        } catch let error as PairingError {
            throw error
        } catch {
            guard receivedAnything else {
                throw PairingError("the agent at \(host):\(port) refused this coordinator (\(error)): its pairing window "
                    + "is not open; run `dualcam-agent pair` on the agent, then pair again")
            }
            throw error
        }
    }
}
