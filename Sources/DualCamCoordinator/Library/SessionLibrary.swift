import Foundation

/// The sessions under one or more output folders: what `list`, `show`, `delete` and
/// `recompose` work on.
public struct SessionLibrary: Sendable {
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

    /// Removes the session's folder with everything in it: only a real folder directly
    /// inside one of the library's folders, never one reached through a symbolic link or
    /// named by a path that leads elsewhere (`../otherproj`).
    public func delete(_ session: SessionFolder) throws {
        try checkInside(session, doing: "deleting")
        let lock = try SessionLock(sessionDirectory: session.path, purpose: "deleting")
        defer { withExtendedLifetime(lock) {} }
        try remove(session)
    }

    /// Deletes the session as `delete(_:)` does, after asking the agents named in its
    /// `session.json` to remove their spooled copies (nil `forgetter`: none is asked). The
    /// folder is locked first, so that no agent is asked about a session that is being
    /// recorded or resumed, and read before it goes; it goes whatever the agents answered.
    public func delete(_ session: SessionFolder, forgetter: SpoolForgetter?) async throws -> AgentCopies {
        try checkInside(session, doing: "deleting")
        let lock = try SessionLock(sessionDirectory: session.path, purpose: "deleting")
        defer { withExtendedLifetime(lock) {} }
        let copies: AgentCopies
        if let forgetter {
            try refuseWhileAgentsRecord(for: session)
            copies = await AgentCopies.ask(forgetter, about: session)
        } else {
            copies = .notAsked
        }
        try remove(session)
        return copies
    }

    /// An agent serves one coordinator connection at a time, and a new one from the same
    /// coordinator replaces the old: asking an agent that another process of this
    /// coordinator records with would cut that take's connection.
    private func refuseWhileAgentsRecord(for session: SessionFolder) throws {
        guard let mine = try? SessionRecord.load(from: session.path) else { return }
        let agents = Set(mine.agents.map(\.deviceID))
        for other in sessions() where other.path != session.path && SessionLock.isHeld(sessionDirectory: other.path) {
            guard let record = try? SessionRecord.load(from: other.path),
                  let shared = record.agents.first(where: { agents.contains($0.deviceID) }) else { continue }
            throw CoordinatorError("not deleting \(session.id) now: a coordinator is recording or resuming \(other.id) with "
                + "\(shared.name), and asking that agent would take it from that take. Delete it once that take is finished, "
                + "or pass --keep-agent-copies to delete it now without asking the agents")
        }
    }

    private func remove(_ session: SessionFolder) throws {
        do {
            try FileManager.default.removeItem(atPath: session.path)
        } catch {
            throw CoordinatorError("could not delete \(session.path): \(error.localizedDescription)")
        }
    }

    /// Whether `session` is a real folder directly inside one of `directories`, links
    /// resolved: what a browser may be shown. A session folder planted as a link to
    /// elsewhere was listed by the studio, and a file outside the library read back.
    public func holds(_ session: SessionFolder) -> Bool {
        (try? checkInside(session, doing: "serving")) != nil
    }

    /// Refuses a session folder that is not a real folder directly inside one of
    /// `directories`, comparing real paths (links and `..` resolved).
    func checkInside(_ session: SessionFolder, doing action: String) throws {
        let places = directories.joined(separator: ", ")
        var status = stat()
        guard lstat(session.path, &status) == 0 else {
            throw CoordinatorError("not \(action) \(session.path): it is not there any more")
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: session.path)) ?? "?"
            throw CoordinatorError("not \(action) \(session.path): it is a symbolic link (to \(target)), and DualCam only "
                + "\(action == "deleting" ? "deletes" : "writes") real session folders; remove the link itself with rm if it is not wanted")
        }
        let parent = Self.realPath((session.path as NSString).deletingLastPathComponent)
        let inside = directories.contains { Self.realPath($0).map { $0 == parent } ?? false }
        guard inside, parent != nil else {
            throw CoordinatorError("not \(action) \(session.path): it is not a session folder inside \(places); "
                + "only sessions that `dualcam-coordinator list` shows are \(action == "deleting" ? "deleted" : "changed") "
                + "(pass --out with the folder that holds it)")
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
