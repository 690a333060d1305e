import Foundation

/// Names read from a session's files that become paths: each must stay inside the folder.
enum SessionFileName {
    /// The symbolic links in a session folder and its `segments/` folders. Rebuilding a
    /// session rewrites its files in place (FFmpeg opens them by name, following links),
    /// so one planted there would have its target overwritten; the caller refuses instead.
    static func symbolicLinks(in sessionDirectory: String) -> [String] {
        let fm = FileManager.default
        var folders = [sessionDirectory, sessionDirectory + "/segments"]
        folders += ((try? fm.contentsOfDirectory(atPath: sessionDirectory + "/segments")) ?? []).map { sessionDirectory + "/segments/" + $0 }
        var links: [String] = []
        for folder in folders {
            var status = stat()
            if folder != sessionDirectory, lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
                links.append(folder)
                continue
            }
            for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] {
                if lstat(folder + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFLNK { links.append(folder + "/" + name) }
            }
        }
        return links
    }

    /// Refuses to write a session that holds symbolic links, naming them.
    static func refuseLinks(in sessionDirectory: String, doing action: String) throws {
        let links = symbolicLinks(in: sessionDirectory)
        guard !links.isEmpty else { return }
        throw CoordinatorError("not \(action) \(sessionDirectory): it holds symbolic links (\(links.joined(separator: ", "))), "
            + "and DualCam never writes through one; remove them (rm) and try again")
    }

    /// A name the manifest's imports may hold: a plain name in `imports/` or in
    /// `imports/originals/`, nothing that leads elsewhere.
    static func isImport(_ name: String) -> Bool {
        for folder in ["imports/originals/", "imports/"] where name.hasPrefix(folder) {
            return isPlain(String(name.dropFirst(folder.count)))
        }
        return false
    }

    /// One path component, not `.` or `..`, no NUL, not hidden (the lock and temporary
    /// files are the hidden ones).
    static func isPlain(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.contains("/") && !name.contains("\0") && !name.hasPrefix(".")
    }
}
