import DualCamCore
import Foundation

/// `--config FILE`: the service's settings as `key = value` lines (the long option
/// names without dashes; `true`/`false` for flags; a key may repeat, e.g. `trust`).
/// They are placed before the command line's own options, so a flag given by hand (or
/// in a systemd drop-in's ExecStart) overrides the file.
public enum ConfigFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The options and flags of the command the file is for (long names without
    /// dashes), so that each line is read as what it is: a value is passed on as a
    /// value even when it reads `yes`, and an unknown key is refused with its line.
    public struct Keys: Sendable {
        public var options: Set<String>
        public var flags: Set<String>

        public init(options: Set<String>, flags: Set<String>) {
            self.options = options
            self.flags = flags
        }
    }

    /// `arguments` without the program name; returns them with the file expanded.
    /// Without `keys`, a line whose value is a boolean is taken for a flag.
    public static func expand(_ arguments: [String], keys: Keys? = nil) throws -> [String] {
        guard let at = arguments.firstIndex(of: "--config") else { return arguments }
        guard at + 1 < arguments.count else { throw Failure(description: "--config needs a file path") }
        let path = arguments[at + 1]
        var rest = arguments
        rest.removeSubrange(at...(at + 1))
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(description: "cannot read the config file \(path); see deploy/dualcam-agent.conf for an example")
        }
        let options = overridden(try parse(text, path: path, keys: keys), by: rest)
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
        let named = Set(given.filter { $0.hasPrefix("--") }.map(optionName))
        var kept: [String] = []
        var index = 0
        while index < options.count {
            let key = optionName(options[index])
            let joined = options[index].contains("=")
            let takesValue = !joined && index + 1 < options.count && !options[index + 1].hasPrefix("--")
            let end = takesValue ? index + 2 : index + 1
            let partners = exclusive.first { $0.contains(key) }.map { $0.subtracting([key]) } ?? []
            if partners.isDisjoint(with: named) { kept += options[index..<end] }
            index = end
        }
        return kept
    }

    /// "gain" from "--gain" or "--gain=-6".
    private static func optionName(_ argument: String) -> String {
        String(argument.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    /// Flags that are on by default, so `false` must say so: with their `--no-` form,
    /// or with the flag that means the opposite.
    static let invertible: Set<String> = ["mdns"]
    static let opposites: [String: String] = ["genlock": "free-run"]

    public static func parse(_ text: String, path: String, keys: Keys? = nil) throws -> [String] {
        let read = KeyValueLines.parse(text)
        if let problem = read.problems.first { throw Failure(description: problem.sentence(path: path)) }
        return try read.lines.flatMap { line in
            try arguments(key: line.key, value: Value(text: line.value, quoted: line.quoted), keys: keys, at: "\(path):\(line.number)")
        }
    }

    private struct Value {
        var text: String
        var quoted: Bool
        var boolean: Bool? { KeyValueLines.boolean(text) }
    }

    private static func arguments(key: String, value: Value, keys: Keys?, at: String) throws -> [String] {
        let isFlag: Bool
        if let keys {
            let flag = keys.flags.contains(key)
            guard flag || keys.options.contains(key) else {
                throw Failure(description: "\(at): unknown key `\(key)`; the keys are the long options of "
                    + "`dualcam-agent run --help` without the dashes" + suggestion(for: key, among: keys))
            }
            isFlag = flag
        } else {
            isFlag = !value.quoted && value.boolean != nil
        }
        guard isFlag else {
            // Joined with "=" when the value starts with "-", or the parser would read
            // `-6` as an option of its own and say a value is missing.
            return value.text.hasPrefix("-") ? ["--\(key)=\(value.text)"] : ["--" + key, value.text]
        }
        guard let on = value.boolean else {
            throw Failure(description: "\(at): \(key) is a flag: give true or false, not `\(value.text)`")
        }
        if on { return ["--" + key] }
        if invertible.contains(key) || keys?.flags.contains("no-" + key) == true { return ["--no-" + key] }
        if let opposite = opposites[key] { return ["--" + opposite] }
        // Off unless given: false needs no argument.
        return []
    }

    /// ", did you mean `x`?" for a key one or two letters away from a real one.
    private static func suggestion(for key: String, among keys: Keys) -> String {
        let near = keys.options.union(keys.flags).filter { !$0.hasPrefix("no-") }
            .map { ($0, EditDistance.between(Array(key), Array($0))) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }
        return near.map { ", did you mean `\($0.0)`?" } ?? ""
    }
}
