import DualCamCore
import Foundation

/// The coordinator's remembered choices (`$XDG_CONFIG_HOME/dualcam/coordinator.conf`,
/// `key = value` lines): the layout last chosen while recording is the next default.
public enum CoordinatorPreferences {
    public static var path: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.config")
        return base + "/dualcam/coordinator.conf"
    }

    public static func values() -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            out[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return out
    }

    /// The remembered layout, if any and still readable.
    public static func layout() -> LayoutSpec? {
        values()["layout"].flatMap { try? LayoutSpec(parsing: $0) }
    }

    static func saveLayout(_ spec: LayoutSpec) throws {
        var all = values()
        all["layout"] = spec.description
        let text = "# written by dualcam-coordinator: the choices last made while recording\n"
            + all.keys.sorted().map { "\($0) = \(all[$0]!)\n" }.joined()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
