import ArgumentParser
import DualCamAgent
import Foundation

extension AgentCommand {
    /// The long names of the options and flags the command in `arguments` (`run` when
    /// none is named) takes, read from the parser itself through its
    /// `--experimental-dump-help` description: the config file then accepts exactly what
    /// the command line does, and no second list of options can drift from the first.
    /// Nil when the parser gives no description, and the file is read without it.
    static func configKeys(for arguments: [String]) -> ConfigFile.Keys? {
        let subcommand = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 } ?? "run"
        let description: String
        do {
            _ = try parseAsRoot([subcommand, "--experimental-dump-help"])
            return nil
        } catch {
            description = fullMessage(for: error)
        }
        guard let tool = try? JSONSerialization.jsonObject(with: Data(description.utf8)) as? [String: Any],
              let command = tool["command"] as? [String: Any],
              let arguments = command["arguments"] as? [[String: Any]] else { return nil }
        var keys = ConfigFile.Keys(options: [], flags: [])
        let builtIn: Set<String> = ["help", "version", "experimental-dump-help", "config"]
        for argument in arguments {
            let names = ((argument["names"] as? [[String: Any]]) ?? [])
                .filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String }
                .filter { !builtIn.contains($0) }
            switch argument["kind"] as? String {
            case "option": keys.options.formUnion(names)
            case "flag": keys.flags.formUnion(names)
            default: break
            }
        }
        return keys.options.isEmpty ? nil : keys
    }
}
