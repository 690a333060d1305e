import DualCamCoordinator
import Foundation
import Synchronization

/// The live status on stderr: on a terminal, rewritten in place with notes (warnings,
/// events) printed above it; elsewhere (a log, a pipe) a line every ten seconds. On a
/// terminal too narrow for one line it takes a line per camera, each cut to the width
/// (`StatusText.layout`): a line that wraps cannot be rewritten in place.
final class StatusLine: Sendable {
    private let inPlace = isatty(STDERR_FILENO) == 1
    private struct State {
        /// Terminal lines now showing the status (the cursor is at the end of the last).
        var shownLines = 0
        var lastLogged = Date.distantPast
    }
    private let state = Mutex(State())

    func show(_ parts: [String]) {
        guard !parts.isEmpty else { return }
        state.withLock { s in
            if inPlace {
                let lines = StatusText.layout(parts, columns: Self.terminalColumns())
                Self.write(Self.clearSequence(&s) + lines.joined(separator: "\n"))
                s.shownLines = lines.count
            } else if Date().timeIntervalSince(s.lastLogged) >= 10 {
                s.lastLogged = Date()
                Self.write(parts.joined(separator: " | ") + "\n")
            }
        }
    }

    func note(_ text: String) {
        state.withLock { s in Self.write(Self.clearSequence(&s) + text + "\n") }
    }

    /// The finishing bar: in place on a terminal, at every quarter elsewhere.
    func bar(percent: Int, previous: Int) {
        let filled = max(0, min(20, percent / 5))
        let text = "finalising [" + String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled) + "] \(percent)%"
        if inPlace {
            state.withLock { s in
                Self.write(Self.clearSequence(&s) + text)
                s.shownLines = 1
            }
        } else if percent == 100 || percent / 25 != previous / 25 {
            note(text)
        }
    }

    func end() {
        state.withLock { s in Self.write(Self.clearSequence(&s)) }
    }

    /// Back to the first status line, erasing each on the way.
    private static func clearSequence(_ s: inout State) -> String {
        guard s.shownLines > 0 else { return "" }
        defer { s.shownLines = 0 }
        return "\r\u{1B}[K" + String(repeating: "\u{1B}[1A\u{1B}[K", count: s.shownLines - 1)
    }

    private static func write(_ text: String) {
        guard !text.isEmpty else { return }
        Console.put(text, to: STDERR_FILENO)
    }

    private static func terminalColumns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
