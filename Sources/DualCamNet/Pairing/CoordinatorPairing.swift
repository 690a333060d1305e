import DualCamProtocol
import Foundation

/// The coordinator's half of the pairing exchange (PROTOCOL.md §13), without sockets.
public struct CoordinatorPairing: Sendable {
    public enum Step: Sendable, Equatable {
        case send(Dualcam_V1_Envelope.OneOf_Body)
        /// Ask the person whether the agent shows this code; answer with `confirm`.
        case confirmCode(String, agentName: String, role: Dualcam_V1_Role)
        case paired
        case refused(String)
    }

    enum Phase: Sendable { case idle, requested, nonceSent, confirming, confirmed, finished }

    let agent: DeviceID
    let coordinator: DeviceID
    let nonce: [UInt8]
    private var phase = Phase.idle
    private var commitment: [UInt8] = []

    public init(agent: DeviceID, coordinator: DeviceID, nonce: [UInt8] = PairingCode.randomNonce()) {
        precondition(nonce.count == PairingCode.nonceLength)
        self.agent = agent
        self.coordinator = coordinator
        self.nonce = nonce
    }

    public mutating func start(coordinatorName: String) -> Dualcam_V1_Envelope.OneOf_Body {
        precondition(phase == .idle, "start once")
        phase = .requested
        var request = Dualcam_V1_PairRequest()
        request.coordinatorName = coordinatorName
        return .pairRequest(request)
    }

    public mutating func receive(_ body: Dualcam_V1_Envelope.OneOf_Body) throws -> [Step] {
        switch (phase, body) {
        case (.requested, .pairCommit(let commit)):
            guard commit.commitment.count == 32 else { throw PairingError("PairCommit must carry a SHA-256 (32 bytes)") }
            commitment = Array(commit.commitment)
            phase = .nonceSent
            var mine = Dualcam_V1_PairNonce()
            mine.nonce = Data(nonce)
            return [.send(.pairNonce(mine))]
        case (.nonceSent, .pairReveal(let reveal)):
            guard PairingCode.commitment(to: Array(reveal.nonce)) == commitment else {
                phase = .finished
                throw PairingError("the agent's nonce does not match its commitment: someone may be interfering; do not pair on this network")
            }
            phase = .confirming
            let code = PairingCode.derive(agent: agent, coordinator: coordinator,
                                          agentNonce: Array(reveal.nonce), coordinatorNonce: nonce)
            return [.confirmCode(code, agentName: String(reveal.agentName.prefix(64)), role: reveal.role)]
        case (.confirmed, .pairResult(let result)):
            phase = .finished
            return [result.paired ? .paired : .refused(result.message.isEmpty ? "the agent refused" : result.message)]
        case (_, .error(let error)):
            phase = .finished
            return [.refused(error.message)]
        default:
            throw PairingError("\(body.name) is out of order in a pairing exchange")
        }
    }

    /// The person's answer to `confirmCode`.
    public mutating func confirm(codesMatch: Bool) -> Dualcam_V1_Envelope.OneOf_Body {
        precondition(phase == .confirming, "confirm answers confirmCode")
        phase = .confirmed
        var confirm = Dualcam_V1_PairConfirm()
        confirm.codesMatch = codesMatch
        return .pairConfirm(confirm)
    }
}
