import DualCamProtocol
import Foundation

/// The coordinator's half of pairing (PROTOCOL.md §14), without sockets. The person has
/// typed the code the agent shows; the coordinator sends its CPace share, checks the
/// agent's tag (which proves the agent used the same code and saw the same two device
/// IDs), and only then proves its own knowledge of the code with its tag.
public struct CoordinatorPairing: Sendable {
    public enum Step: Sendable, Equatable {
        case send(Dualcam_V1_Envelope.OneOf_Body)
        case paired(agentName: String, role: Dualcam_V1_Role)
        case refused(String)
    }

    enum Phase: Sendable { case idle, requested, confirmed, mismatched, finished }

    let agent: DeviceID
    let coordinator: DeviceID
    let code: String
    let sessionNonce: [UInt8]
    private var phase = Phase.idle
    private var party: CPace.Party?
    private var coordinatorName = ""
    private var agentName = ""
    private var role = Dualcam_V1_Role.unspecified

    public init(agent: DeviceID, coordinator: DeviceID, code: String, sessionNonce: [UInt8] = CPace.randomNonce()) {
        precondition(sessionNonce.count == CPace.sessionNonceLength)
        self.agent = agent
        self.coordinator = coordinator
        self.code = code
        self.sessionNonce = sessionNonce
    }

    public var isFinished: Bool { phase == .finished }

    public mutating func start(coordinatorName: String) throws -> Dualcam_V1_Envelope.OneOf_Body {
        precondition(phase == .idle, "start once")
        phase = .requested
        self.coordinatorName = coordinatorName
        let generator = try CPace.generator(prs: PairingCode.secret(code),
                                            channel: CPace.channel(coordinator: coordinator, agent: agent), sid: sessionNonce)
        let party = try CPace.Party(generator: generator)
        self.party = party
        var request = Dualcam_V1_PairRequest()
        request.coordinatorName = coordinatorName
        request.sessionNonce = Data(sessionNonce)
        request.share = Data(party.share)
        return .pairRequest(request)
    }

    private var mismatch: String {
        "the code does not match the one \(agentName) shows: a mistyped code, or someone interfering on the network; nothing was paired"
    }

    /// What to say when the agent closes before its answer to a mismatched code.
    public var refusalIfClosed: String? { phase == .mismatched ? mismatch + ". Check the code and run pair again" : nil }

    public mutating func receive(_ body: Dualcam_V1_Envelope.OneOf_Body) throws -> [Step] {
        switch (phase, body) {
        case (.requested, .pairShare(let reply)):
            phase = .finished
            guard let party else { throw PairingError("PairShare before PairRequest") }
            if let problem = WireIdentifier.problem(reply.agentName, what: "agent_name") { throw PairingError(problem) }
            agentName = reply.agentName
            role = reply.role
            let confirmation = try CPace.confirmation(
                party: party, peerShare: Array(reply.share), sid: sessionNonce, coordinatorShare: party.share,
                coordinatorName: coordinatorName, agentShare: Array(reply.share), agentName: agentName)
            guard confirmation.verify(Array(reply.proof), share: Array(reply.share), data: Array(agentName.utf8)) else {
                // Tell the agent at once (it counts the attempt either way), and keep our
                // tag to ourselves: it would prove nothing the agent could use.
                // Its answer says how many tries its window has left, which the refusal
                // passes on (`refusalIfClosed` when it never comes).
                var confirm = Dualcam_V1_PairConfirm()
                confirm.proof = Data()
                phase = .mismatched
                return [.send(.pairConfirm(confirm))]
            }
            phase = .confirmed
            var confirm = Dualcam_V1_PairConfirm()
            confirm.proof = Data(confirmation.tag(share: party.share, data: Array(coordinatorName.utf8)))
            return [.send(.pairConfirm(confirm))]
        case (.mismatched, .pairResult(let result)):
            phase = .finished
            let left = result.message.isEmpty ? "" : " (\(agentName): \(WireIdentifier.printable(result.message)))"
            return [.refused(mismatch + left + ". Check the code and run pair again")]
        case (.mismatched, .error):
            phase = .finished
            return [.refused(mismatch + ". Check the code and run pair again")]
        case (.confirmed, .pairResult(let result)):
            phase = .finished
            return [result.paired ? .paired(agentName: agentName, role: role)
                                  : .refused(result.message.isEmpty ? "the agent refused" : WireIdentifier.printable(result.message))]
        case (_, .error(let error)):
            phase = .finished
            return [.refused(WireIdentifier.printable(error.message))]
        default:
            phase = .finished
            throw PairingError("\(body.name) is out of order in a pairing exchange")
        }
    }
}
