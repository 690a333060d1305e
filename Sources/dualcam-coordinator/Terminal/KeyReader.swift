import Foundation

/// Standard input as commands: single keys on a terminal (no Enter needed), lines from a
/// pipe. The terminal is put back as it was at exit.
enum KeyReader {
    enum Command: Sendable, Equatable {
        case enter, start, stop, nextLayout, swap, nextPlacement, quit
        /// `d`: take the programme over from the director, or hand it back.
        case director
        /// `director auto|manual` from a pipe.
        case directorMode(Bool)
        case layout(String)
        /// `filter NAME [INTENSITY]`
        case filter(String)
        /// `mix SPEC`
        case mix(String)
        /// `camera [NAME] [--set …] [--zoom …]`: the words after `camera`
        case camera(String)
    }

    // Invariant: written once, on the reader thread before any other use, and read by
    // the exit handler after; the process has one terminal.
    nonisolated(unsafe) private static var original: termios?
    static func start(_ handle: @escaping @Sendable (Command) -> Void) {
        let thread = Thread { read(handle) }
        thread.name = "dualcam-keys"
        thread.start()
    }

    static func restoreTerminal() {
        guard var saved = original else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    private static func read(_ handle: @Sendable (Command) -> Void) {
        if isatty(STDIN_FILENO) == 1 {
            var settings = termios()
            guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
            original = settings
            atexit { KeyReader.restoreTerminal() }
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            var byte: UInt8 = 0
            while Foundation.read(STDIN_FILENO, &byte, 1) == 1 {
                switch byte {
                case 10, 13: handle(.enter)
                case UInt8(ascii: "q"): handle(.stop)
                case UInt8(ascii: "l"): handle(.nextLayout)
                case UInt8(ascii: "s"): handle(.swap)
                case UInt8(ascii: "p"): handle(.nextPlacement)
                case UInt8(ascii: "d"): handle(.director)
                default: break
                }
            }
        } else {
            while let line = readLine() {
                let command = line.trimmingCharacters(in: .whitespaces)
                switch command {
                case "": handle(.enter)
                case "q", "stop": handle(.stop)
                case "start": handle(.start)
                case "quit", "exit": handle(.quit)
                case "l": handle(.nextLayout)
                case "s": handle(.swap)
                case "p": handle(.nextPlacement)
                case "d": handle(.director)
                case "director auto": handle(.directorMode(true))
                case "director manual": handle(.directorMode(false))
                default:
                    if command.hasPrefix("layout ") { handle(.layout(String(command.dropFirst(7)))) }
                    if command.hasPrefix("filter ") { handle(.filter(String(command.dropFirst(7)))) }
                    if command.hasPrefix("mix ") { handle(.mix(String(command.dropFirst(4)))) }
                    if command == "camera" || command.hasPrefix("camera ") { handle(.camera(String(command.dropFirst(6)))) }
                }
            }
        }
    }
}
