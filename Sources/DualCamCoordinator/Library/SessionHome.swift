import Foundation

/// The one folder that holds the sessions, whatever the current folder: `library =` in
/// coordinator.conf, else `DualCam` in the user's videos folder (XDG_VIDEOS_DIR from
/// user-dirs.dirs, as the desktop's file manager names it, else ~/Videos). Sessions used
/// to go to `./DualCam`, so `cd /tmp; list` found none of them.
public enum SessionHome {
    public static func directory(config: CoordinatorConfig = CoordinatorConfig(),
                                 environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let library = config.library { return URL(fileURLWithPath: library).standardizedFileURL.path }
        return videosDirectory(environment) + "/DualCam"
    }

    /// The user's videos folder as user-dirs.dirs names it (`"$HOME/Videos"`), else ~/Videos.
    static func videosDirectory(_ env: [String: String]) -> String {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let configHome = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        if let text = try? String(contentsOfFile: configHome + "/user-dirs.dirs", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("XDG_VIDEOS_DIR=") {
                var value = String(line.dropFirst("XDG_VIDEOS_DIR=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
                value = value.replacingOccurrences(of: "$HOME", with: home)
                // A videos folder set to the home folder itself means "none" to xdg-user-dirs.
                if value.hasPrefix("/") && value != home { return value }
            }
        }
        return home + "/Videos"
    }

    /// Folders of sessions written before the home existed (`./DualCam`, `./DualCam-demo`)
    /// that hold sessions, for a word where `list` looks: they are not lost, only elsewhere.
    public static func earlierFolders(besides home: String) -> [String] {
        ["DualCam", "DualCam-demo"].map { URL(fileURLWithPath: $0).standardizedFileURL.path }.filter { path in
            path != home && !SessionLibrary(directories: [path]).sessions().isEmpty
        }
    }
}
