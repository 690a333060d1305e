import DualCamCore
import Foundation

/// The coordinator's defaults, as the user wrote them (`$XDG_CONFIG_HOME/dualcam/
/// coordinator.conf`, in the agent.conf's dialect, `KeyValueLines`): never rewritten by the program,
/// so nothing changes a later take behind the user's back (a layout key pressed in a demo
/// once became every later start's layout), and each default used is said at the start.
///
/// Keys: `layout` (a layout spec, as `--layout`), `require` (agents that must be there,
/// as `--require`), `library` (the folder of sessions, as `--out`), `director`, `style`,
/// `min-shot`, `switch-delay` (the director, as the flags of the same names).
public struct CoordinatorConfig: Sendable {
    public static let keys = ["layout", "require", "library", "director", "style", "min-shot", "switch-delay", "phase-lock", "stream"]
    public var values: [String: String] = [:]
    /// Lines that could not be read, with their number: every command that reads the file
    /// refuses it (`check`), never a silent default.
    public var problems: [String] = []
    /// What is worth saying but stops nothing (a file an older version wrote).
    public var notes: [String] = []
    public let path: String

    public static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.config")
        return base + "/dualcam/coordinator.conf"
    }

    public init(path: String = CoordinatorConfig.defaultPath) {
        self.path = path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        // Versions before 0.4 wrote the layout last keyed while recording here; that was
        // never the user's choice, so it is not taken for one.
        let written = text.hasPrefix("# written by dualcam-coordinator")
        if written {
            notes.append("\(path) was written by an older dualcam-coordinator from a layout key pressed while recording; "
                + "its layout is no longer used: write `layout = NAME` there yourself to keep a default")
            return
        }
        let read = KeyValueLines.parse(text)
        problems = read.problems.map { $0.sentence(path: path) + "; the keys are " + Self.keys.joined(separator: ", ") }
        for line in read.lines {
            guard Self.keys.contains(line.key) else {
                problems.append("\(path):\(line.number): unknown key `\(line.key.prefix(40))`" + Self.suggestion(for: line.key)
                                + "; the keys are " + Self.keys.joined(separator: ", "))
                continue
            }
            values[line.key] = line.value
        }
    }

    /// Throws every problem of the file in one sentence: a mistyped key (`libary =`) must
    /// stop the command that reads the file, not quietly leave the default in force.
    public func check() throws {
        guard !problems.isEmpty else { return }
        throw CoordinatorError(problems.joined(separator: "; ") + " (fix the file, or remove the line)")
    }

    /// ", did you mean `x`?" for a key at most two edits from a real one.
    static func suggestion(for key: String) -> String {
        let near = keys.map { ($0, EditDistance.between(Array(key.lowercased()), Array($0))) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }
        return near.map { ", did you mean `\($0.0)`?" } ?? ""
    }

    /// The default layout, or the reason it cannot be used.
    public func layout() throws -> LayoutSpec? {
        guard let text = values["layout"] else { return nil }
        do { return try LayoutSpec(parsing: text) } catch {
            throw CoordinatorError("\(path): layout = \(text): \(error)")
        }
    }

    /// The director as the file sets it, each key overridden by the flag given for it.
    public func director(mode: String?, style: String?, minShot: Double?, switchDelay: Double?) throws -> DirectorSettings? {
        func seconds(_ key: String) throws -> Double? {
            guard let text = values[key] else { return nil }
            guard let value = Double(text) else { throw CoordinatorError("\(path): \(key) = \(text) is not a number of seconds") }
            return value
        }
        let effective = mode ?? values["director"]
        // The file's tuning keys are defaults for when the director is on: a take with it
        // off ignores them; a tuning *flag* without the director is refused (`parse`).
        if ["off", nil].contains(effective?.lowercased()) {
            return try DirectorSettings.parse(mode: effective, style: style, minShot: minShot, switchDelay: switchDelay)
        }
        do {
            return try DirectorSettings.parse(mode: effective, style: style ?? values["style"],
                                              minShot: try minShot ?? seconds("min-shot"),
                                              switchDelay: try switchDelay ?? seconds("switch-delay"))
        } catch let error as CoordinatorError where mode == nil {
            throw CoordinatorError("\(path): \(error)")
        }
    }

    /// `stream = URL [URL …]`: where every take's programme is streamed (as `--stream`).
    /// A key is a password: a file that others can read is refused while it holds one.
    public func streams() throws -> [StreamDestination] {
        guard let text = values["stream"], !text.isEmpty else { return [] }
        let mode = ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
        if mode & 0o077 != 0 {
            throw CoordinatorError("\(path) holds a stream key and others can read it: chmod 600 \(path)")
        }
        return try text.split(whereSeparator: \.isWhitespace).map { try StreamDestination(String($0)) }
    }

    /// `phase-lock = on|off` (default on).
    public func phaseLock() throws -> Bool {
        guard let text = values["phase-lock"] else { return true }
        guard let on = KeyValueLines.boolean(text) else {
            throw CoordinatorError("\(path): phase-lock = \(text.lowercased()) is not on or off")
        }
        return on
    }

    public var required: [String] {
        values["require"].map(RequiredAgents.parse) ?? []
    }

    public var library: String? {
        values["library"].flatMap { $0.isEmpty ? nil : ($0 as NSString).expandingTildeInPath }
    }
}

/// `--require host,guest`: agents (by name or role) without which a take does not start.
public enum RequiredAgents {
    public static func parse(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// Which of `required` no connected agent answers to (by name or role).
    public static func missing(_ required: [String], connected: [(name: String, role: String)]) -> [String] {
        required.filter { wanted in
            !connected.contains { $0.name.lowercased() == wanted || $0.role.lowercased() == wanted }
        }
    }
}
