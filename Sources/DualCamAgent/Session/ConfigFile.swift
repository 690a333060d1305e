import Foundation

/// `--config FILE`: the service's settings as `key = value` lines (the long option
/// names without dashes; `true`/`false` for flags; a key may repeat, e.g. `trust`).
/// They are placed before the command line's own options, so a flag given by hand (or
/// in a systemd drop-in's ExecStart) overrides the file.
public enum ConfigFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `arguments` without the program name; returns them with the file expanded.
    public static func expand(_ arguments: [String]) throws -> [String] {
        guard let at = arguments.firstIndex(of: "--config") else { return arguments }
        guard at + 1 < arguments.count else { throw Failure(description: "--config needs a file path") }
        let path = arguments[at + 1]
        var rest = arguments
        rest.removeSubrange(at...(at + 1))
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(description: "cannot read the config file \(path); see deploy/dualcam-agent.conf for an example")
        }
        let options = try parse(text, path: path)
        // After the subcommand's name, when there is one, so its parser sees them.
        let insertAt = rest.first.map { $0.hasPrefix("-") ? 0 : 1 } ?? 0
        rest.insert(contentsOf: options, at: insertAt)
        return rest
    }

    /// Flags that are on by default, so `false` must say so.
    static let invertible: Set<String> = ["mdns"]

    public static func parse(_ text: String, path: String) throws -> [String] {
        var options: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw Failure(description: "\(path):\(number + 1): expected `key = value`, got `\(line)`")
            }
            var value = parts[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            switch value.lowercased() {
            case "true", "yes", "on": options.append("--" + parts[0])
            case "false", "no", "off":
                // Most flags are off unless given; the few that default on have a --no- form.
                if invertible.contains(parts[0]) { options.append("--no-" + parts[0]) }
            default: options += ["--" + parts[0], value]
            }
        }
        return options
    }
}
