import ArgumentParser
import DualCamCoordinator
import DualCamNet
import Foundation

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair with an agent whose pairing window is open (`dualcam-agent pair` on the agent).",
        discussion: """
            Lists the unpaired agents found over mDNS, or takes --agent. Type the six-digit secret code the \
            agent shows (`dualcam-agent pair` on it, or its journal for the window it opens at first start). \
            The code never crosses the network: both sides prove they know it (CPace). A wrong code pairs \
            nothing, and a few wrong codes close the agent's window.
            """)
    @OptionGroup var state: StateOption
    @Option(help: "The agent as HOST:PORT or HOST:PORT,DEVICE-ID (default: choose among those found over mDNS).")
    var agent: String?
    @Option(help: "Name the agent will list this coordinator under.") var name = ProcessInfo.processInfo.hostName
    @Option(parsing: .unconditional, help: "Seconds to browse for agents.") var browseSeconds = 3.0

    func validate() throws { try CoordinatorRanges.browseSeconds.validate(browseSeconds) }

    func run() async throws {
        let identity = try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator")
        let paired = PairedDevices(stateDirectory: state.directory)
        let (host, port, id) = try await target(paired: paired)
        let pairer = AgentPairer(identity: identity, coordinatorName: name, paired: paired)
        let entry: PairedDevices.Entry
        do {
            entry = try await pairer.pair(host: host, port: port, expected: id) { agentName in
            // Asked again on a malformed code, so that a typo costs none of the agent's attempts.
            while true {
                FileHandle.standardOutput.write(Data("Type the code \(agentName) shows (`dualcam-agent pair` there, or its journal): ".utf8))
                guard let typed = readLine() else { return nil }
                if let code = PairingCode.normalized(typed) { return code }
                print("A code is six digits, e.g. 042 917.")
            }
            }
        } catch let already as AlreadyPaired {
            print("\(already)")
            return
        }
        print("Paired with \(entry.name) [\(entry.role)] (\(entry.deviceID)).")
    }

    private func target(paired: PairedDevices) async throws -> (String, Int, DeviceID?) {
        if let agent {
            switch try AgentSelection.Spec(parsing: agent) {
            case .address(let host, let port, let id): return (host, port, id)
            case .id: throw ValidationError("--agent for pairing needs an address: HOST:PORT[,DEVICE-ID]")
            }
        }
        let trusted = paired.trusted()
        let unpaired = try await AgentBrowser.snapshot(seconds: browseSeconds)
            .filter { !trusted.contains($0.advertisement.deviceID) && !$0.addresses.isEmpty }
        // Agents that say their window is open come first; an older agent says nothing.
        let open = unpaired.filter(\.advertisement.pairingOpen)
        let candidates = open.isEmpty ? unpaired : open
        guard !candidates.isEmpty else {
            throw ValidationError("no unpaired agent answered over mDNS within \(browseSeconds) s; open its pairing "
                + "window (`dualcam-agent pair`) and check it is on this network, or name it with --agent HOST:PORT")
        }
        var choice = 0
        if candidates.count > 1 {
            for (n, agent) in candidates.enumerated() {
                print("\(n + 1). \(agent.advertisement.name) [\(agent.advertisement.role)] \(agent.addresses[0]):\(agent.port)  \(agent.advertisement.deviceID)")
            }
            choice = try choose(among: candidates.map(\.advertisement.name))
        }
        let agent = candidates[choice]
        print("Pairing with \(agent.advertisement.name) at \(agent.addresses[0]):\(agent.port)...")
        return (agent.addresses[0], agent.port, agent.advertisement.deviceID)
    }
}

/// Asks which agent to pair with: its number or its name, asked again (three times at
/// most) for anything else, so that typing "host" at the menu picks the host.
private func choose(among names: [String]) throws -> Int {
    for _ in 0..<3 {
        print("Pair with which agent? Its number (1-\(names.count)) or name: ", terminator: "")
        guard let line = readLine()?.trimmingCharacters(in: .whitespaces) else { break }
        if let n = Int(line), (1...names.count).contains(n) { return n - 1 }
        let matches = names.indices.filter { names[$0].caseInsensitiveCompare(line) == .orderedSame }
        if matches.count == 1 { return matches[0] }
        print(matches.isEmpty ? "No agent is called \"\(line)\"." : "Several agents are called \"\(line)\"; give its number.")
    }
    throw ValidationError("no agent chosen; run pair again, or name it with --agent HOST:PORT")
}

struct Unpair: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revoke a paired agent (by device ID, its first group, or name).")
    @OptionGroup var state: StateOption
    @Argument(help: "Device ID, first ID group or name of the agent.") var agent: String?
    @Flag(help: "Revoke every paired agent.") var all = false

    func run() throws {
        try PairingCLI.unpair(PairedDevices(stateDirectory: state.directory), selector: agent, all: all, kind: "agent")
    }
}

struct Paired: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the agents this coordinator trusts.")
    @OptionGroup var state: StateOption

    func run() throws {
        try PairingCLI.list(PairedDevices(stateDirectory: state.directory), kind: "agent")
    }
}

struct Discover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the agents announcing themselves over mDNS.")
    @OptionGroup var state: StateOption
    @Option(parsing: .unconditional, help: "Seconds to browse.") var seconds = 3.0
    @Flag(help: "Keep following agents as they appear and leave (Ctrl-C ends).") var follow = false

    func validate() throws { try CoordinatorRanges.discoverFor.validate(seconds) }

    func run() async throws {
        let trusted = PairedDevices(stateDirectory: state.directory).trusted()
        func line(_ agent: DiscoveredAgent) -> String {
            let a = agent.advertisement
            let paired = trusted.contains(a.deviceID) ? "paired" : (a.pairingOpen ? "unpaired, pairing window open" : "unpaired")
            return "\(a.name) [\(a.role)] \(agent.addresses.first ?? agent.hostName):\(agent.port) \(paired) "
                + "protocol \(a.protocolMajor).\(a.protocolMinor) \(a.deviceID)"
        }
        if !follow {
            let agents = try await AgentBrowser.snapshot(seconds: seconds)
            if agents.isEmpty { print("No agent answered within \(seconds) s.") }
            for agent in agents { print(line(agent)) }
            return
        }
        let (browser, events) = try AgentBrowser.browse()
        defer { browser.finish() }
        // One line per agent, not per address or interface it is resolved on (IPv4, IPv6,
        // each network): a line when it appears or what it announces changes, and one
        // when its last announcement leaves. Written at once (not through stdio's buffer),
        // so that a pipe (`discover --follow | tee`) sees each line as it happens.
        var follower = DiscoveryFollower()
        for await event in events {
            if case .failed(let error) = event { throw error }
            for text in follower.lines(for: event, describe: line) { Console.out(text) }
        }
    }
}
