import DualCamCoordinator
import Foundation

/// Standard input as commands: single keys on a terminal (no Enter needed), lines from a
/// pipe (`TerminalInput` says what each means). The terminal is put back as it was at exit.
enum KeyReader {
    // Invariant: written once, on the reader thread before any other use, and read by
    // the exit handler after; the process has one terminal.
    nonisolated(unsafe) private static var original: termios?
    static func start(_ handle: @escaping @Sendable (TerminalInput) -> Void) {
        let thread = Thread { read(handle) }
        thread.name = "dualcam-keys"
        thread.start()
    }

    static func restoreTerminal() {
        guard var saved = original else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    private static func read(_ handle: @Sendable (TerminalInput) -> Void) {
        if isatty(STDIN_FILENO) == 1 {
            var settings = termios()
            guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
            original = settings
            atexit { KeyReader.restoreTerminal() }
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            var byte: UInt8 = 0
            while Foundation.read(STDIN_FILENO, &byte, 1) == 1 {
                if let input = TerminalInput(key: byte) { handle(input) }
            }
        } else {
            while let line = readLine() {
                if let input = TerminalInput(line: line) { handle(input) }
            }
        }
    }
}
