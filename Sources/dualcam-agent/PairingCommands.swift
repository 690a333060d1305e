import ArgumentParser
import DualCamAgent
import DualCamNet
import Foundation
import Synchronization

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open the running agent's pairing window and show the secret code to type at the coordinator.")
    @OptionGroup var state: StateOption
    @Option(parsing: .unconditional, help: "Seconds the window stays open.") var seconds = 120

    func validate() throws { try AgentRanges.pairSeconds.validate(seconds) }

    func run() async throws {
        let outcome = PairOutcome()
        try await ControlSocket.requestPairing(stateDirectory: try state.enter(), seconds: seconds) { line in
            let (word, rest) = PairOutcome.split(line)
            switch word {
            case "opened":
                let fields = rest.split(separator: "\t").map(String.init)
                say("Pairing window open for \(fields[safe: 0] ?? "") s.")
                say("Code: \(fields[safe: 1] ?? "")   - on the coordinator run `dualcam-coordinator pair` and type it there.")
                say("Keep it to yourself: whoever types it pairs. \(PairingWindow.maxAttempts) wrong codes close the window.")
            case "paired":
                let fields = rest.split(separator: "\t").map(String.init)
                say("Paired with coordinator \"\(fields[safe: 0] ?? "")\" (\(fields[safe: 1] ?? "")).")
                outcome.set(paired: true)
            case "declined":
                let fields = rest.split(separator: "\t").map(String.init)
                say("Coordinator \"\(fields[safe: 0] ?? "")\" (\(fields[safe: 1] ?? "")) typed a wrong code: not paired; "
                    + "\(fields[safe: 2] ?? "?") attempts left.")
            case "closed":
                if !outcome.paired { say("Pairing window closed: \(rest)") }
            default:
                say(line)
            }
        }
        if !outcome.paired { throw ExitCode(1) }
    }
}

struct Unpair: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revoke a paired coordinator (by device ID, its first group, or name).")
    @OptionGroup var state: StateOption
    @Argument(help: "Device ID, first ID group or name of the coordinator.") var coordinator: String?
    @Flag(help: "Revoke every paired coordinator.") var all = false

    func run() throws {
        try PairingCLI.unpair(PairedDevices(stateDirectory: try state.enter()), selector: coordinator, all: all, kind: "coordinator")
    }
}

struct Paired: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the coordinators this agent trusts.")
    @OptionGroup var state: StateOption

    func run() throws {
        try PairingCLI.list(PairedDevices(stateDirectory: try state.enter()), kind: "coordinator")
    }
}

/// What the pairing window's events amounted to.
final class PairOutcome: Sendable {
    private let box = Mutex(false)
    var paired: Bool { box.withLock { $0 } }
    func set(paired: Bool) { box.withLock { $0 = paired } }

    static func split(_ line: String) -> (String, String) {
        guard let space = line.firstIndex(of: " ") else { return (line, "") }
        return (String(line[..<space]), String(line[line.index(after: space)...]))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// Written straight through: the lines of `pair` must show while it waits.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
