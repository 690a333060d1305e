import Foundation

/// The sessions under one or more output folders: what `list`, `show`, `delete` and
/// `recompose` work on.
public struct SessionLibrary: Sendable {
    /// Where `start` and `demo` write by default; searched when no `--out` is given, so
    /// that a demo session is found without naming its folder.
    public static let defaultDirectories = ["DualCam", "DualCam-demo"]

    public let directories: [String]

    /// `directories`: the folders to look in, relative to the working directory or absolute.
    public init(directories: [String]) {
        self.directories = directories.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }

    /// Every session in the folders, oldest first.
    public func sessions() -> [SessionFolder] {
        let fm = FileManager.default
        var found: [SessionFolder] = []
        for directory in directories {
            let names = ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }
            for name in names where SessionFolder.isSession(directory + "/" + name) {
                found.append(SessionFolder(path: directory + "/" + name))
            }
        }
        // Dates first; the ID (a timestamp too) breaks ties and orders undated folders.
        return found.sorted { a, b in
            let (da, db) = (a.date ?? .distantPast, b.date ?? .distantPast)
            return da != db ? da < db : a.id < b.id
        }
    }

    /// A session named by its folder's path or by its ID (looked up in the folders).
    public func resolve(_ argument: String) throws -> SessionFolder {
        if argument.contains("/") || argument.hasPrefix(".") {
            guard SessionFolder.isSession(argument) else {
                throw CoordinatorError("\(argument) is not a session folder (no manifest.json, segments/ or DualCam_*.mp4 in it)")
            }
            return SessionFolder(path: argument)
        }
        let all = sessions()
        if let match = all.first(where: { $0.id == argument }) { return match }
        // A session folder in the working directory, named without "./".
        if SessionFolder.isSession(argument) { return SessionFolder(path: argument) }
        let places = directories.joined(separator: ", ")
        guard !all.isEmpty else {
            throw CoordinatorError("no session '\(argument)': there are no sessions in \(places); "
                + "name the output folder with --out DIR, or give the session folder's path")
        }
        throw CoordinatorError("no session '\(argument)' in \(places). Sessions there: \(all.map(\.id).joined(separator: ", "))")
    }

    /// Removes the session's folder with everything in it.
    public func delete(_ session: SessionFolder) throws {
        let lock = try SessionLock(sessionDirectory: session.path, purpose: "deleting")
        defer { withExtendedLifetime(lock) {} }
        do {
            try FileManager.default.removeItem(atPath: session.path)
        } catch {
            throw CoordinatorError("could not delete \(session.path): \(error.localizedDescription)")
        }
    }
}
