/// The one dialect of DualCam's `key = value` settings files, the agent's agent.conf and
/// the coordinator's coordinator.conf alike: one setting a line; blank lines and lines
/// starting with `#` are nothing; `#` after a value starts a comment, except inside a
/// double-quoted value (`name = "Studio #2"`), which is taken as written without its
/// quotes; keys are letters, digits and dashes; Windows line ends read like any other.
public enum KeyValueLines {
    public struct Line: Sendable, Hashable {
        /// 1-based, for messages.
        public var number: Int
        public var key: String
        public var value: String
        /// The value was written in double quotes (so `"true"` is a word, not a flag).
        public var quoted: Bool
    }

    /// A line that is not a setting: where and why, as a message ends its sentence.
    public struct Problem: Error, Sendable, Hashable {
        public var number: Int
        public var reason: String

        /// "PATH:N: reason", the form every message about a settings file takes.
        public func sentence(path: String) -> String { "\(path):\(number): \(reason)" }
    }

    /// A flag's value: `true`, `yes`, `on` or their opposites, in any case; nil for any
    /// other word.
    public static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }

    /// Every setting of `text` in order, and every line that is none.
    public static func parse(_ text: String) -> (lines: [Line], problems: [Problem]) {
        var lines: [Line] = []
        var problems: [Problem] = []
        // isNewline splits at "\r\n" too (one Character in Swift).
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            switch line(raw.trimmingWhitespace, number: index + 1) {
            case .none: continue
            case .some(.success(let line)): lines.append(line)
            case .some(.failure(let problem)): problems.append(problem)
            }
        }
        return (lines, problems)
    }

    private static func line(_ text: String, number: Int) -> Result<Line, Problem>? {
        if text.isEmpty || text.hasPrefix("#") { return nil }
        guard let equals = text.firstIndex(of: "=") else {
            return .failure(Problem(number: number, reason: "expected `key = value`, got `\(text.prefix(60))`"))
        }
        let key = text[..<equals].trimmingWhitespace
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            return .failure(Problem(number: number, reason: "expected `key = value`, got `\(text.prefix(60))`"))
        }
        let rest = Substring(text[text.index(after: equals)...].trimmingWhitespace)
        guard rest.hasPrefix("\"") else {
            let value = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return .success(Line(number: number, key: key, value: value.trimmingWhitespace, quoted: false))
        }
        let inside = rest.dropFirst()
        guard let close = inside.firstIndex(of: "\"") else {
            return .failure(Problem(number: number, reason: "the value of \(key) opens a quote that does not close"))
        }
        let after = inside[inside.index(after: close)...].trimmingWhitespace
        guard after.isEmpty || after.hasPrefix("#") else {
            return .failure(Problem(number: number, reason: "`\(after.prefix(40))` after the quoted value of \(key); put a # before a comment"))
        }
        return .success(Line(number: number, key: key, value: String(inside[..<close]), quoted: true))
    }
}
