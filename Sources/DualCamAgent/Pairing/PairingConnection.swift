import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// Serves a coordinator let in only because the pairing window is open (PROTOCOL.md §13):
/// Hello, then the pairing exchange; anything else is refused and acted on in no way.
struct PairingConnection {
    let options: AgentOptions
    let identity: DeviceIdentity
    let window: PairingWindow
    let paired: PairedDevices
    let logger: Logger

    func serve(_ channel: EnvelopeChannel, coordinator: DeviceID) async throws {
        try await channel.executeThenClose { inbound, outbound in
            let out = EnvelopeWriter(outbound)
            // The person at the coordinator may take a while to compare codes; keepalives
            // keep both idle timeouts quiet meanwhile.
            let keepalive = out.keepalives()
            defer { keepalive.cancel() }
            var exchange = AgentPairing(agent: identity.deviceID, coordinator: coordinator,
                                        agentName: options.name, role: options.role)
            for try await received in inbound {
                let body = received.envelope.body
                switch body {
                case .hello(let hello):
                    if let mismatch = WireProtocol.checkCompatible(peer: hello.version) {
                        try await out.sendError(.errorVersionMismatch, mismatch, fatal: true)
                        return
                    }
                    var ack = Dualcam_V1_HelloAck()
                    ack.version = WireProtocol.version
                    ack.software = "dualcam-agent 0.1.0"
                    ack.nodeName = options.name
                    ack.role = options.role
                    try await out.send(.helloAck(ack))
                case .keepalive, .none:
                    continue
                case .some(let body) where body.isPairing:
                    guard window.isOpen else {
                        try await out.sendError(.errorNotPaired, "the pairing window of \(options.name) closed; "
                            + "run `dualcam-agent pair` on the agent and try again", fatal: true)
                        return
                    }
                    let steps: [AgentPairing.Step]
                    do {
                        steps = try exchange.receive(body)
                    } catch {
                        try await out.sendError(.errorBadMessage, "\(error)", fatal: true)
                        return
                    }
                    for step in steps { try await perform(step, coordinator: coordinator, out: out) }
                    if exchange.isFinished { return }
                case .some(let body):
                    logger.warning("refused \(body.name) from unpaired coordinator \(coordinator)")
                    try await out.sendError(.errorNotPaired, "this coordinator (device \(coordinator)) is not paired with "
                        + "\(options.name); pair with `dualcam-coordinator pair` first", fatal: true)
                    return
                }
            }
        }
    }

    private func perform(_ step: AgentPairing.Step, coordinator: DeviceID, out: EnvelopeWriter) async throws {
        switch step {
        case .send(let body):
            try await out.send(body)
        case .showCode(let code, let name):
            logger.notice("pairing code \(code) for coordinator \"\(name)\" (\(coordinator)); confirm it there")
            window.publish(.code(code, coordinatorName: name, coordinator: coordinator))
        case .pair(let name, let reply):
            try paired.add(.init(deviceID: coordinator, name: name, role: "coordinator", pairedAt: Date()))
            logger.notice("paired with coordinator \"\(name)\" (\(coordinator))")
            window.publish(.paired(coordinatorName: name, coordinator: coordinator))
            window.close("paired with \(name)")
            try await out.send(reply)
        case .declined(let reply):
            window.publish(.declined(coordinatorName: ""))
            try await out.send(reply)
        }
    }
}
