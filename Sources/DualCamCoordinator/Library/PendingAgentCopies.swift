import DualCamProtocol
import Foundation

/// Agents that may still hold spooled copies of sessions deleted here, kept in the
/// coordinator's state folder (`agent-copies.json`): the session's own record is gone
/// with its folder, and this is what lets a later `delete --retry-agents` ask them again.
public struct PendingAgentCopies: Sendable {
    struct Entry: Codable, Sendable {
        var sessionID: String
        var agents: [SessionRecord.Agent]
    }

    public static let fileName = "agent-copies.json"
    public let path: String

    public init(stateDirectory: String) {
        path = stateDirectory + "/" + Self.fileName
    }

    /// Entries whose session ID is not a safe name are dropped: the file may have been
    /// edited, and its IDs go on the wire.
    func entries() -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path),
              let entries = try? JSONDecoder().decode([Entry].self, from: data) else { return [] }
        return entries.filter { WireIdentifier.isValid($0.sessionID) && !$0.agents.isEmpty }
    }

    public var isEmpty: Bool { entries().isEmpty }

    /// Notes the agents that `copies` says may still hold `sessionID`, replacing what was
    /// noted for that session before (none left: the entry goes).
    public func note(_ copies: AgentCopies) throws {
        guard case .asked(let sessionID, let answers) = copies else { return }
        let left = answers.filter(\.stillHeld).map(\.agent)
        var all = entries().filter { $0.sessionID != sessionID }
        if !left.isEmpty { all.append(Entry(sessionID: sessionID, agents: left)) }
        try save(all)
    }

    private func save(_ entries: [Entry]) throws {
        if entries.isEmpty {
            guard FileManager.default.fileExists(atPath: path) else { return }
            do { try FileManager.default.removeItem(atPath: path) } catch {
                throw CoordinatorError("cannot update \(path): \(error.localizedDescription)")
            }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(entries).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CoordinatorError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Asks every noted agent again, one session after another (two connections of one
    /// coordinator to one agent would replace each other), and keeps only those that may
    /// still hold their session. An agent unreachable once is not tried again in the same
    /// run: a node that is down would cost every session it holds the full wait.
    public func retry(with forgetter: SpoolForgetter) async throws -> [AgentCopies] {
        var results: [AgentCopies] = []
        var unreachable: [String: String] = [:]
        for entry in entries() {
            let asking = entry.agents.filter { unreachable[$0.deviceID] == nil }
            var answers = await forgetter.forget(sessionID: entry.sessionID, agents: asking)
            for copy in answers { if case .unanswered(let why) = copy.outcome { unreachable[copy.agent.deviceID] = why } }
            for agent in entry.agents where !asking.contains(where: { $0.deviceID == agent.deviceID }) {
                answers.append(AgentCopy(agent: agent, outcome: .unanswered(unreachable[agent.deviceID] ?? "")))
            }
            let copies = AgentCopies.asked(sessionID: entry.sessionID, answers)
            try note(copies)
            results.append(copies)
        }
        return results
    }
}
