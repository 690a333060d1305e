import DualCamProtocol
import Foundation

/// The agent's half of pairing (PROTOCOL.md §14), without sockets: fed the messages of a
/// connection let in during the pairing window, it answers the coordinator's CPace share
/// with its own and its key-confirmation tag, and pins the coordinator only once the
/// coordinator's tag proves that it used the same code.
public struct AgentPairing: Sendable {
    public enum Step: Sendable, Equatable {
        case send(Dualcam_V1_Envelope.OneOf_Body)
        /// The coordinator proved it knows the code: pin it, then send the reply.
        case pair(coordinatorName: String, reply: Dualcam_V1_Envelope.OneOf_Body)
        /// The coordinator's proof did not match: a wrong code (or someone in between).
        case declined(coordinatorName: String, reply: Dualcam_V1_Envelope.OneOf_Body)
    }

    enum Phase: Sendable { case awaitingRequest, shared, finished }

    let agent: DeviceID
    let coordinator: DeviceID
    let agentName: String
    let role: Dualcam_V1_Role
    let code: String
    private var phase = Phase.awaitingRequest
    private var coordinatorName = ""
    private var confirmation: CPace.Confirmation?
    private var coordinatorShare: [UInt8] = []

    /// `code` is the window's code as shown (`PairingCode`).
    public init(agent: DeviceID, coordinator: DeviceID, agentName: String, role: Dualcam_V1_Role, code: String) {
        self.agent = agent
        self.coordinator = coordinator
        self.agentName = agentName
        self.role = role
        self.code = code
    }

    public var isFinished: Bool { phase == .finished }

    public mutating func receive(_ body: Dualcam_V1_Envelope.OneOf_Body) throws -> [Step] {
        switch (phase, body) {
        case (.awaitingRequest, .pairRequest(let request)):
            phase = .finished
            guard !request.share.isEmpty else {
                throw PairingError("this agent pairs with a secret code (protocol \(WireProtocol.major).\(WireProtocol.minor)); "
                    + "update dualcam-coordinator and pair again")
            }
            guard request.sessionNonce.count == CPace.sessionNonceLength, request.share.count == CPace.shareLength else {
                throw PairingError("PairRequest needs a \(CPace.sessionNonceLength)-byte session nonce and a "
                    + "\(CPace.shareLength)-byte share")
            }
            if let problem = WireIdentifier.problem(request.coordinatorName, what: "coordinator_name") {
                throw PairingError(problem)
            }
            coordinatorName = request.coordinatorName
            let nonce = Array(request.sessionNonce)
            let generator = try CPace.generator(prs: PairingCode.secret(code),
                                                channel: CPace.channel(coordinator: coordinator, agent: agent), sid: nonce)
            let party = try CPace.Party(generator: generator)
            let confirmation = try CPace.confirmation(
                party: party, peerShare: Array(request.share), sid: nonce, coordinatorShare: Array(request.share),
                coordinatorName: coordinatorName, agentShare: party.share, agentName: agentName)
            self.confirmation = confirmation
            self.coordinatorShare = Array(request.share)
            phase = .shared
            var reply = Dualcam_V1_PairShare()
            reply.share = Data(party.share)
            reply.proof = Data(confirmation.tag(share: party.share, data: Array(agentName.utf8)))
            reply.agentName = agentName
            reply.role = role
            return [.send(.pairShare(reply))]
        case (.shared, .pairConfirm(let confirm)):
            phase = .finished
            var result = Dualcam_V1_PairResult()
            guard let confirmation,
                  confirmation.verify(Array(confirm.proof), share: coordinatorShare, data: Array(coordinatorName.utf8)) else {
                result.paired = false
                result.message = "not paired: the code did not match the one \(agentName) shows"
                return [.declined(coordinatorName: coordinatorName, reply: .pairResult(result))]
            }
            result.paired = true
            result.message = "paired with \(agentName)"
            return [.pair(coordinatorName: coordinatorName, reply: .pairResult(result))]
        default:
            phase = .finished
            throw PairingError("\(body.name) is out of order in a pairing exchange")
        }
    }
}
