import DualCamNet
import DualCamProtocol
import Foundation
import Logging

/// Serves a coordinator let in only because the pairing window is open (PROTOCOL.md §14):
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
            // The person at the coordinator may take a while to type the code; keepalives
            // keep both idle timeouts quiet meanwhile.
            let keepalive = out.keepalives()
            defer { keepalive.cancel() }
            var exchange: AgentPairing?
            // The window's attempt this connection took, given back as failed unless it paired.
            var attempt: Int?
            var paired = false
            defer {
                if let attempt, !paired, let closed = window.attemptFailed(generation: attempt) {
                    logger.warning("pairing window \(closed)")
                }
            }
            for try await received in inbound {
                let body = received.envelope.body
                switch body {
                case .hello(let hello):
                    if let mismatch = WireProtocol.checkCompatible(peer: hello.version) {
                        try await out.sendError(.errorVersionMismatch, mismatch, fatal: true)
                        return
                    }
                    // Before HelloAck, so that the person at an older coordinator hears it
                    // before typing the code, and no attempt of the window is spent.
                    let laptop = hello.nodeName.isEmpty ? "its laptop" : WireIdentifier.printable(hello.nodeName)
                    if let older = PairingVersion.mismatch(peer: hello.version, thisSide: "agent (\(options.name))",
                                                           olderSide: "dualcam-coordinator", where: "on \(laptop)") {
                        logger.warning("pairing refused: \(older)")
                        try await out.sendError(.errorVersionMismatch, older, fatal: true)
                        return
                    }
                    var ack = Dualcam_V1_HelloAck()
                    ack.version = WireProtocol.version
                    ack.software = Release.software("dualcam-agent")
                    ack.nodeName = options.name
                    ack.role = options.role
                    try await out.send(.helloAck(ack))
                case .keepalive, .none:
                    continue
                case .some(let body) where body.isPairing:
                    if exchange == nil {
                        // Only a request starts an attempt; it is counted before the agent
                        // answers with anything that depends on the code.
                        guard case .pairRequest = body, let taken = window.beginAttempt() else {
                            let reason = window.isOpen ? "no attempts are left in this pairing window" : "the pairing window closed"
                            try await out.sendError(.errorNotPaired, "\(reason) on \(options.name); "
                                + "run `dualcam-agent pair` on the agent and try again", fatal: true)
                            return
                        }
                        attempt = taken.generation
                        exchange = AgentPairing(agent: identity.deviceID, coordinator: coordinator,
                                                agentName: options.name, role: options.role, code: taken.code)
                    }
                    let steps: [AgentPairing.Step]
                    do {
                        steps = try exchange!.receive(body)
                    } catch {
                        logger.warning("pairing attempt by \(coordinator) refused: \(error)")
                        try await out.sendError(.errorBadMessage, "\(error)", fatal: true)
                        return
                    }
                    for step in steps { paired = try await perform(step, coordinator: coordinator, out: out) || paired }
                    if exchange!.isFinished { return }
                case .some(let body):
                    logger.warning("refused \(body.name) from unpaired coordinator \(coordinator)")
                    try await out.sendError(.errorNotPaired, "this coordinator (device \(coordinator)) is not paired with "
                        + "\(options.name); pair with `dualcam-coordinator pair` first", fatal: true)
                    return
                }
            }
        }
    }

    /// Does what the exchange asked; true once the coordinator is pinned.
    private func perform(_ step: AgentPairing.Step, coordinator: DeviceID, out: EnvelopeWriter) async throws -> Bool {
        switch step {
        case .send(let body):
            try await out.send(body)
            return false
        case .pair(let name, let reply):
            try paired.add(.init(deviceID: coordinator, name: name, role: "coordinator", pairedAt: Date()))
            logger.notice("paired with coordinator \"\(name)\" (\(coordinator)): it proved it knows the code")
            window.publish(.paired(coordinatorName: name, coordinator: coordinator))
            window.close("paired with \(name)")
            try await out.send(reply)
            return true
        case .declined(let name, let reply):
            let left = window.attemptsLeft
            logger.warning("pairing attempt by coordinator \"\(name)\" (\(coordinator)) failed: wrong code; \(left) attempt\(left == 1 ? "" : "s") left in this window")
            window.publish(.declined(coordinatorName: name, coordinator: coordinator, left: left))
            var told = reply
            if case .pairResult(var result) = reply {
                // The person at the laptop is told how many tries remain before the window closes.
                result.message += left > 0 ? "; \(left) attempt\(left == 1 ? "" : "s") left in this window"
                    : "; no attempt left: run `dualcam-agent pair` on the node for a new code"
                told = .pairResult(result)
            }
            try await out.send(told)
            return false
        }
    }
}
