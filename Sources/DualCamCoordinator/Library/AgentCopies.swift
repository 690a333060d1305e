import DualCamProtocol
import Foundation

/// What became of one agent's spooled copy of a deleted session.
public struct AgentCopy: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The agent removed its spool of the session.
        case freed(bytes: UInt64)
        /// The agent held nothing of it.
        case heldNothing
        /// The agent keeps it, and says why (it records it now, a removal failed).
        case kept(reason: String)
        /// The agent was not asked or did not answer: why, in words.
        case unanswered(String)
    }

    public var name: String
    /// HOST:PORT as the session recorded it.
    public var address: String
    public var outcome: Outcome
    /// As the session's record named it, to ask it again later.
    var agent: SessionRecord.Agent

    /// The name and address as they are shown: the record is a file, made printable.
    init(agent: SessionRecord.Agent, outcome: Outcome) {
        self.agent = agent
        self.outcome = outcome
        name = WireIdentifier.printable(agent.name, maxCharacters: 64)
        address = WireIdentifier.printable("\(agent.hosts.first ?? "?"):\(agent.port)", maxCharacters: 100)
    }

    /// The agent may still hold the session.
    public var stillHeld: Bool {
        switch outcome {
        case .freed, .heldNothing: false
        case .kept, .unanswered: true
        }
    }
}

/// What `delete` learnt of the agents' spooled copies of a session.
public enum AgentCopies: Sendable {
    /// Each agent named in the session's record (whose ID it holds), in its order, with
    /// its answer.
    case asked(sessionID: String, [AgentCopy])
    /// Which agents hold the session cannot be told: why.
    case unknown(sessionID: String, String)
    /// The caller asked no agent.
    case notAsked

    static func ask(_ forgetter: SpoolForgetter, about session: SessionFolder) async -> AgentCopies {
        guard FileManager.default.fileExists(atPath: session.path + "/" + SessionRecord.fileName) else {
            return .unknown(sessionID: session.id, "it has no \(SessionRecord.fileName) (recorded before DualCam kept one), which would name its agents")
        }
        let record: SessionRecord
        do {
            record = try SessionRecord.load(from: session.path)
        } catch {
            return .unknown(sessionID: session.id, "its \(SessionRecord.fileName), which names its agents, cannot be read")
        }
        // A demo's agents kept their spools in a scratch folder removed with the demo:
        // there is nobody to ask, and nothing left to free.
        if record.demo == true { return .notAsked }
        return .asked(sessionID: record.sessionID, await forgetter.forget(sessionID: record.sessionID, agents: record.agents))
    }
}

extension AgentCopies {
    /// What `delete` prints about the agents, one line each, with what to do about a
    /// copy that is left.
    public func lines() -> [String] {
        switch self {
        case .notAsked:
            return []
        case .unknown(let sessionID, let why):
            return ["Cannot tell which agents still hold spooled copies of \(sessionID): \(why). On each agent that recorded it, "
                + "remove the folder \(sessionID) from its spool (the spool folder in its --state folder, or its --spool)."]
        case .asked(let sessionID, let copies):
            return ["Agents' spooled copies of \(sessionID):"] + copies.map { copy in
                let who = "  \(copy.name) (\(copy.address))"
                switch copy.outcome {
                case .freed(let bytes):
                    return "\(who): removed its spooled copy, \(LibraryFormat.bytes(Int64(clamping: bytes))) freed."
                case .heldNothing:
                    return "\(who): held no copy of it."
                case .kept(let reason):
                    return "\(who) still holds its spooled copy: \(reason). " + Self.advice
                case .unanswered(let why):
                    return "\(who) still holds its spooled copy, as far as this coordinator knows: \(why). " + Self.advice
                }
            }
        }
    }

    private static let advice = "Once it is up (and done recording it), run `dualcam-coordinator delete --retry-agents` to ask it again."
}
