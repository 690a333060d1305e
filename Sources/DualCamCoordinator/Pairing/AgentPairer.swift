import DualCamNet
import DualCamProtocol
import Foundation

/// Pairs this coordinator with one agent whose pairing window is open (PROTOCOL.md §14).
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
    /// asks `code` for the code the agent shows (given the name the agent announces; nil
    /// gives up), proves it to the agent and checks the agent's proof, and on success pins
    /// the agent. Returns the entry written.
    public func pair(host: String, port: Int, expected: DeviceID?,
                     code: @escaping @Sendable (_ agentName: String) async -> String?) async throws
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
                hello.software = Release.software("dualcam-coordinator")
                hello.nodeName = coordinatorName
                try await out.send(.hello(hello))
                var exchange: CoordinatorPairing?
                var shownName = "the agent"
                for try await received in inbound {
                    receivedAnything = true
                    switch received.envelope.body {
                    case .helloAck(let ack):
                        if WireIdentifier.isValid(ack.nodeName) { shownName = ack.nodeName }
                        // A session's HelloAck (it carries the camera's capabilities): the
                        // agent trusts this coordinator already. Pairing again would ask for
                        // a code it shows nowhere; remembering it here is all that is left.
                        if ack.hasCapabilities {
                            let entry = PairedDevices.Entry(deviceID: agentID, name: shownName, role: ack.role.name, pairedAt: Date())
                            if !paired.trusted().contains(agentID) { try paired.add(entry) }
                            throw AlreadyPaired(entry: entry)
                        }
                        if let older = PairingVersion.mismatch(peer: ack.version, thisSide: "coordinator",
                                                               olderSide: "dualcam-agent", where: "on \(shownName)") {
                            throw PairingError(older)
                        }
                        guard let typed = await code(shownName) else { throw PairingError("no code typed: nothing was paired") }
                        var started = CoordinatorPairing(agent: agentID, coordinator: identity.deviceID, code: typed)
                        try await out.send(started.start(coordinatorName: coordinatorName))
                        exchange = started
                    case .keepalive, .none:
                        continue
                    case .error(let error) where exchange == nil:
                        throw PairingError(WireIdentifier.printable(error.message))
                    case .some(let body):
                        guard var current = exchange else { throw PairingError("\(body.name) before the agent's HelloAck") }
                        let steps = try current.receive(body)
                        exchange = current
                        for step in steps {
                            switch step {
                            case .send(let reply):
                                try await out.send(reply)
                            case .paired(let agentName, let role):
                                let entry = PairedDevices.Entry(deviceID: agentID, name: agentName, role: role.name,
                                                                pairedAt: Date())
                                try paired.add(entry)
                                return entry
                            case .refused(let why):
                                throw PairingError("\(shownName) did not pair: \(why)")
                            }
                        }
                    }
                }
                if let refusal = exchange?.refusalIfClosed { throw PairingError("\(shownName) did not pair: \(refusal)") }
                throw PairingError("the agent at \(host):\(port) closed the connection during pairing")
            }
        } catch let error as PairingError {
            throw error
        } catch let error as AlreadyPaired {
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

/// The agent trusts this coordinator already: there is nothing to pair (it is listed as
/// paired here now, whether it was or not).
public struct AlreadyPaired: Error, CustomStringConvertible {
    public let entry: PairedDevices.Entry
    public var description: String {
        "\(entry.name) already trusts this coordinator: nothing to pair (`dualcam-coordinator paired` lists it; "
            + "`dualcam-agent unpair` on the agent forgets it, to pair afresh)"
    }
}
