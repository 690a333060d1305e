/// The nodes a take would record without that the person starting it must agree to leave
/// out: a paired node that was part of the last take (every paired one before any take,
/// every named one with `--agent`) and is now missing or NOT READY. Recording one camera
/// where two were meant, with one warning line, is what issue 36 found; so `start` asks
/// at a terminal, refuses without one unless `--allow-missing`, and the studio confirms.
public struct LeftOutNodes: Sendable, Equatable {
    public struct Node: Sendable, Equatable {
        public var name: String
        public var role: String
        /// "NOT READY" (connected, its camera cannot record) or "NOT HERE" (not found).
        public var state: String
        /// Why, and what to do.
        public var reason: String

        /// "NAME [role] is NOT READY: why, and what to do."
        public var sentence: String {
            "\(name) [\(role)] is \(state): \(reason)" + (reason.hasSuffix(".") ? "" : ".")
        }
    }

    public var nodes: [Node]

    /// `agents`: the rig once connected; `absent`: the paired agents not found;
    /// `lastTake`: device IDs of the newest take's cameras (nil: no take yet);
    /// `paired`: the paired device IDs; `named`: the agents were named (`--agent`).
    public init(agents: [AgentStatus], absent: [AgentSelection.Absent], lastTake: Set<String>?, paired: Set<String>,
                named: Bool) {
        func counts(_ deviceID: String) -> Bool {
            named || (lastTake.map { $0.contains(deviceID) } ?? paired.contains(deviceID))
        }
        nodes = agents.compactMap { agent in
            guard agent.connection == .connected, let reason = agent.sourceProblem, counts(agent.deviceID) else { return nil }
            return Node(name: agent.name, role: agent.role, state: "NOT READY", reason: reason)
        } + absent.filter { counts($0.deviceID) }.map { Node(name: $0.name, role: $0.role, state: "NOT HERE", reason: $0.reason) }
    }

    public var isEmpty: Bool { nodes.isEmpty }

    /// "A", "A and B", "A, B and C".
    public var names: String {
        let names = nodes.map(\.name)
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// What a terminal says before it asks, one sentence a node.
    public var sentences: [String] { nodes.map(\.sentence) }

    /// The question a terminal asks (Console adds "[y/N]").
    public var question: String { "record without \(names)?" }

    /// Why `start` without a terminal refuses, and what to do.
    public var refusal: String {
        let them = nodes.count == 1 ? "it" : "them"
        return sentences.joined(separator: " ") + " Not recording without \(them): start again once \(nodes.count == 1 ? "it is" : "they are") "
            + "ready, or give --allow-missing to record without \(them)."
    }
}

extension LeftOutNodes {
    /// A rig's own view (`serve`, the studio): every node that is connected but NOT READY,
    /// or not connected at all, whatever the last take held: a serving rig was started
    /// with these nodes, so each one missing is one the person meant to record.
    public init(rig agents: [AgentStatus]) {
        nodes = agents.compactMap { agent in
            switch agent.connection {
            case .connected:
                return agent.sourceProblem.map { Node(name: agent.name, role: agent.role, state: "NOT READY", reason: $0) }
            case .lost:
                return Node(name: agent.name, role: agent.role, state: "NOT HERE",
                            reason: "its connection was lost, and the rig is reconnecting")
            case .connecting:
                return Node(name: agent.name, role: agent.role, state: "NOT HERE",
                            reason: "it has not answered yet; check that dualcam-agent runs there")
            }
        }
    }

    /// What a start asked of a serving rig does with these nodes left out.
    public enum StartGate: Sendable, Equatable {
        case go
        /// Say this and wait: the same key again goes ahead.
        case ask(String)
        case refuse(String)
    }

    /// At a terminal a first Enter asks and a second (`armed`) goes ahead; without one
    /// (a command from a pipe) only `--allow-missing` lets a take leave nodes out.
    public func startGate(armed: Bool, atTerminal: Bool, allowMissing: Bool) -> StartGate {
        if isEmpty || allowMissing { return .go }
        if atTerminal {
            return armed ? .go : .ask(sentences.joined(separator: " ") + " Record without \(names)? Enter again records "
                + "without \(nodes.count == 1 ? "it" : "them"); any other key does not.")
        }
        return .refuse(refusal)
    }
}
