import DualCamProtocol
import Foundation

/// The agent's half of the pairing exchange (PROTOCOL.md §13), without sockets: it is fed
/// the messages of a connection accepted during the pairing window and says what to send
/// and when to pin the coordinator.
public struct AgentPairing: Sendable {
    public enum Step: Sendable, Equatable {
        case send(Dualcam_V1_Envelope.OneOf_Body)
        /// Show this code next to the coordinator's name, so the person pairing can compare.
        case showCode(String, coordinatorName: String)
        /// The coordinator confirmed matching codes: pin it, then send the body.
        case pair(coordinatorName: String, reply: Dualcam_V1_Envelope.OneOf_Body)
        case declined(reply: Dualcam_V1_Envelope.OneOf_Body)
    }

    enum Phase: Sendable { case awaitingRequest, committed, revealed, finished }

    let agent: DeviceID
    let coordinator: DeviceID
    let agentName: String
    let role: Dualcam_V1_Role
    let nonce: [UInt8]
    private var phase = Phase.awaitingRequest
    private var coordinatorName = ""

    public init(agent: DeviceID, coordinator: DeviceID, agentName: String, role: Dualcam_V1_Role,
                nonce: [UInt8] = PairingCode.randomNonce()) {
        precondition(nonce.count == PairingCode.nonceLength)
        self.agent = agent
        self.coordinator = coordinator
        self.agentName = agentName
        self.role = role
        self.nonce = nonce
    }

    public var isFinished: Bool { phase == .finished }

    public mutating func receive(_ body: Dualcam_V1_Envelope.OneOf_Body) throws -> [Step] {
        switch (phase, body) {
        case (.awaitingRequest, .pairRequest(let request)):
            coordinatorName = String(request.coordinatorName.prefix(64))
            phase = .committed
            var commit = Dualcam_V1_PairCommit()
            commit.commitment = Data(PairingCode.commitment(to: nonce))
            return [.send(.pairCommit(commit))]
        case (.committed, .pairNonce(let theirs)):
            guard theirs.nonce.count == PairingCode.nonceLength else {
                throw PairingError("PairNonce must carry \(PairingCode.nonceLength) bytes, not \(theirs.nonce.count)")
            }
            phase = .revealed
            let code = PairingCode.derive(agent: agent, coordinator: coordinator,
                                          agentNonce: nonce, coordinatorNonce: Array(theirs.nonce))
            var reveal = Dualcam_V1_PairReveal()
            reveal.nonce = Data(nonce)
            reveal.agentName = agentName
            reveal.role = role
            return [.send(.pairReveal(reveal)), .showCode(code, coordinatorName: coordinatorName)]
        case (.revealed, .pairConfirm(let confirm)):
            phase = .finished
            var result = Dualcam_V1_PairResult()
            result.paired = confirm.codesMatch
            if confirm.codesMatch {
                result.message = "paired with \(agentName)"
                return [.pair(coordinatorName: coordinatorName, reply: .pairResult(result))]
            }
            result.message = "not paired: the codes did not match"
            return [.declined(reply: .pairResult(result))]
        default:
            throw PairingError("\(body.name) is out of order in a pairing exchange")
        }
    }
}
