import DualCamCore
import Foundation

/// A key pressed on the coordinator's terminal, or a line read from a pipe: a command
/// request in the wire form the studio sends too (decoded by the same
/// `CommandRequest.rigCommand`), or one of the few things only a terminal does.
public enum TerminalInput: Sendable, Equatable {
    /// Enter: in `serve`, starts a take when none is under way; else stops it.
    case enter
    case request(CommandRequest)
    /// `d`: take the programme over from the director, or hand it back (which way is the
    /// director's own state now).
    case toggleDirector
    /// `camera [NAME] [--set …] [--zoom …]`: the words after `camera`.
    case camera(String)
    case quit
    /// A line that names a command but whose value is refused, with the reason to print.
    case refused(String)

    /// A single key on a terminal (no Enter needed): Enter, q, l, s, p, d.
    public init?(key: UInt8) {
        switch key {
        case 10, 13: self = .enter
        case UInt8(ascii: "q"): self = .request(CommandRequest(.stop))
        case UInt8(ascii: "l"): self = .request(CommandRequest(.nextLayout))
        case UInt8(ascii: "s"): self = .request(CommandRequest(.swap))
        case UInt8(ascii: "p"): self = .request(CommandRequest(.placement))
        case UInt8(ascii: "d"): self = .toggleDirector
        default: return nil
        }
    }

    /// One line from a pipe: `start`, `stop` (`q`, or an empty line: Enter), `stop recording`
    /// (the stream goes on), `l`, `s`, `p`,
    /// `d`, `director auto|manual`, `layout SPEC`, `filter NAME [0-100]`, `mix SPEC`,
    /// `camera …`, `quit` (`exit`).
    public init?(line: String) {
        let command = line.trimmingCharacters(in: .whitespaces)
        func request(_ name: CommandRequest.Name, _ fill: (inout CommandRequest) -> Void = { _ in }) -> TerminalInput {
            var r = CommandRequest(name)
            fill(&r)
            return .request(r)
        }
        switch command {
        case "": self = .enter
        case "q", "stop": self = request(.stop)
        case "stop recording": self = request(.stop) { $0.live = true }
        case "start": self = request(.start)
        case "quit", "exit": self = .quit
        case "l": self = request(.nextLayout)
        case "s": self = request(.swap)
        case "p": self = request(.placement)
        case "d": self = .toggleDirector
        case "director auto": self = request(.director) { $0.director = .auto }
        case "director manual": self = request(.director) { $0.director = .manual }
        case "live on": self = request(.live) { $0.live = true }
        case "live off": self = request(.live) { $0.live = false }
        default:
            if command.hasPrefix("layout ") {
                self = request(.layout) { $0.layout = String(command.dropFirst(7)) }
            } else if command.hasPrefix("filter ") {
                // NAME [INTENSITY[%]]: an intensity left out is 100, as on the command line.
                do {
                    let setting = try FilterSetting(parsing: String(command.dropFirst(7)))
                    self = request(.filter) { $0.filter = setting.kind.rawValue; $0.intensity = setting.intensity }
                } catch {
                    self = .refused("not a filter: \(error)")
                }
            } else if command.hasPrefix("mix ") {
                self = request(.mix) { $0.mix = String(command.dropFirst(4)) }
            } else if command == "camera" || command.hasPrefix("camera ") {
                self = .camera(String(command.dropFirst(6)))
            } else {
                return nil
            }
        }
    }
}
