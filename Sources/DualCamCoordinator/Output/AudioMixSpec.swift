import DualCamCore
import Foundation

/// Which voices the combined file's sound carries and how loud: `all` (every camera at
/// 0 dB, the default; `both` says the same for two), one role's name (`host`), or levels
/// per role in dB (`host=0,guest=-3`; a role left out is not in the mix). In `recompose`,
/// an import's name (or `external`, every import) takes another recorder's sound.
public struct AudioMixSpec: Sendable, Hashable, CustomStringConvertible, Codable {
    /// Role name (lowercased) → gain in dB; nil means every camera at 0 dB.
    public var levels: [String: Double]?

    public static let all = AudioMixSpec(levels: nil)

    public init(levels: [String: Double]?) { self.levels = levels }

    public init(parsing text: String) throws {
        let t = text.lowercased().trimmingCharacters(in: .whitespaces)
        if t == "all" || t == "both" || t.isEmpty {
            levels = nil
            return
        }
        var parsed: [String: Double] = [:]
        for part in t.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let role = pieces.first, !role.isEmpty else { continue }
            if pieces.count == 1 {
                parsed[role] = 0
            } else if let db = Double(pieces[1].replacingOccurrences(of: "db", with: "")), (-60...12).contains(db) {
                parsed[role] = db
            } else {
                throw CoordinatorError("--mix: '\(part)' is not ROLE or ROLE=DB with DB from -60 to +12 (e.g. host=0,guest=-3)")
            }
        }
        guard !parsed.isEmpty else { throw CoordinatorError("--mix must be all, both, a role (host) or levels like host=0,guest=-3") }
        levels = parsed
    }

    /// Refuses a mix naming a camera (or import) the session does not have: `--mix lots`
    /// would otherwise give a silent combined file.
    public func check(cameraNames: [String], importNames: [String] = []) throws {
        guard let levels else { return }
        let known = Set((cameraNames + importNames).map { $0.lowercased() })
        let unknown = levels.keys.filter { !known.contains($0) }.sorted()
        guard unknown.isEmpty else {
            throw CoordinatorError("mix names \(unknown.joined(separator: ", ")), which is not a camera of this session; "
                + "the cameras are \(cameraNames.map { $0.lowercased() }.joined(separator: ", "))"
                + (importNames.isEmpty ? " (or say all)" : ", its imports \(importNames.map { $0.lowercased() }.joined(separator: ", ")) (or say all, or external)"))
        }
    }

    /// `external` stands for every imported recorder at its level (`import`): the names it
    /// stands for put in its place.
    public func expandingExternal(importNames: [String]) throws -> AudioMixSpec {
        guard var levels, let gain = levels.removeValue(forKey: "external") else { return self }
        guard !importNames.isEmpty else {
            throw CoordinatorError("--mix external takes the sound of the session's imports, and it has none: add a recorder's "
                + "file with `dualcam-coordinator import SESSION FILE` first")
        }
        for name in importNames { levels[name.lowercased()] = gain }
        return AudioMixSpec(levels: levels)
    }

    /// One linear gain per camera, in the session's camera order.
    public func gains(for cameraNames: [String]) -> [Float] {
        guard let levels else { return cameraNames.map { _ in 1 } }
        return cameraNames.map { name in levels[name.lowercased()].map { Float(pow(10, $0 / 20)) } ?? 0 }
    }

    public var description: String {
        guard let levels else { return "all" }
        return levels.keys.sorted().map { levels[$0] == 0 ? $0 : "\($0)=\(levels[$0]!)" }.joined(separator: ",")
    }
}
