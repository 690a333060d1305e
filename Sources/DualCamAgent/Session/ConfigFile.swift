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
        let options = overridden(try parse(text, path: path), by: rest)
        // After the subcommand's name, when there is one, so its parser sees them.
        let insertAt = rest.first.map { $0.hasPrefix("-") ? 0 : 1 } ?? 0
        rest.insert(contentsOf: options, at: insertAt)
        return rest
    }

    /// Options of which one excludes the others: a command line giving one drops the
    /// file's others, or the file's `crf = 23` would refuse a hand-given `--bitrate`.
    static let exclusive: [Set<String>] = [["crf", "bitrate"], ["genlock", "free-run"], ["mdns", "no-mdns"]]

    /// The file's options without those the command line `given` overrides through an
    /// exclusive partner (a plain repeat needs no help: the parser keeps the last value).
    static func overridden(_ options: [String], by given: [String]) -> [String] {
        let named = Set(given.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2).split(separator: "=")[0]) })
        var kept: [String] = []
        var index = 0
        while index < options.count {
            let key = String(options[index].dropFirst(2))
            let takesValue = index + 1 < options.count && !options[index + 1].hasPrefix("--")
            let end = takesValue ? index + 2 : index + 1
            let partners = exclusive.first { $0.contains(key) }.map { $0.subtracting([key]) } ?? []
            if partners.isDisjoint(with: named) { kept += options[index..<end] }
            index = end
        }
        return kept
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
