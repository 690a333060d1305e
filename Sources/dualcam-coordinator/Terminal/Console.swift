import Foundation

/// Lines to the user that never take the coordinator down: FileHandle's `write` traps on
/// a write error, and a terminal that went away (SSH dropped, window closed) answers
/// every write with EIO while the take still has to be stopped and finished.
enum Console {
    static func error(_ line: String) { put(line + "\n", to: STDERR_FILENO) }
    static func out(_ line: String) { put(line + "\n", to: STDOUT_FILENO) }

    /// Written whole, as far as the descriptor takes it; errors are dropped.
    static func put(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

extension Console {
    /// A person can answer: standard input is a terminal.
    static var canAsk: Bool { isatty(STDIN_FILENO) == 1 }

    /// A yes/no question at a terminal, read as one line before the key reader takes the
    /// terminal over; nil without a terminal (a script or service: the caller decides).
    static func ask(_ question: String, yesByDefault: Bool) -> Bool? {
        guard canAsk else { return nil }
        put(question + (yesByDefault ? " [Y/n] " : " [y/N] "), to: STDERR_FILENO)
        guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        if answer.isEmpty { return yesByDefault }
        return answer.hasPrefix("y")
    }
}
