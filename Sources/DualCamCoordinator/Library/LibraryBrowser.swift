import Foundation

/// The library as the studio shows it: sessions newest first, each with the files a
/// browser may fetch by their plain names. A name from the browser or from a session's
/// folder is only ever matched against the files the session lists, never joined into a
/// path on its own.
public struct LibraryBrowser: Sendable {
    public let library: SessionLibrary

    public init(directory: String) {
        library = SessionLibrary(directories: [directory])
    }

    /// One file of a session, as the studio lists it.
    public struct File: Codable, Sendable, Equatable {
        public var name: String
        /// camera, sound, combined, render, manifest, contactSheet, thumbnail, timeline.
        public var kind: String
        public var bytes: Int64
    }

    public struct Card: Codable, Sendable {
        public var id: String
        public var state: String
        public var status: String
        public var date: String?
        public var durationSeconds: Double?
        public var sizeBytes: Int64
        public var layout: String?
        public var timecode: String?
        public var thumbnail: String?
        public var contactSheet: String?
        public var files: [File]
        /// Every warning of the manifest (frames dropped, segments lost, clocks): the
        /// card and the session's page show them, as `show` does.
        public var warnings: [String]
        /// Other recorders placed by their sound (`import`), oldest first.
        public var imports: [Import]
    }

    /// An import as the studio's library shows it.
    public struct Import: Codable, Sendable {
        public var name: String
        public var kind: String
        public var offsetSeconds: Double
        public var driftPpm: Double
        public var confidence: Double
        public var pieces: Int
    }

    /// Newest first (as the studio shows them; `list` prints oldest first). Only the
    /// library's own folders: not one reached through a link.
    public func cards() -> [Card] {
        sessions().reversed().map(card)
    }

    private func sessions() -> [SessionFolder] {
        library.sessions().filter(library.holds)
    }

    /// The session whose folder is named `id`, directly in the library: an ID only,
    /// never a path.
    public func session(_ id: String) throws -> SessionFolder {
        guard SessionFileName.isPlain(id) else { throw CoordinatorError("'\(id.prefix(60))' is not a session ID") }
        guard let found = sessions().first(where: { $0.id == id }) else {
            throw CoordinatorError("no session \(id) in \(library.directories.joined(separator: ", "))")
        }
        return found
    }

    public func card(_ s: SessionFolder) -> Card {
        let files = self.files(s)
        return Card(id: s.id, state: s.state, status: s.status, date: s.date.map { ISO8601DateFormatter().string(from: $0) },
                    durationSeconds: s.durationSeconds, sizeBytes: s.totalBytes,
                    layout: s.manifest.map { _ in s.layoutText }, timecode: s.manifest?.timecode,
                    thumbnail: files.first { $0.kind == "thumbnail" }?.name,
                    contactSheet: files.first { $0.kind == "contactSheet" }?.name, files: files, warnings: s.warnings,
                    imports: (s.manifest?.imports ?? []).map {
                        Import(name: $0.name, kind: $0.kind, offsetSeconds: $0.offsetSeconds, driftPpm: $0.driftPpm,
                               confidence: $0.confidence, pieces: $0.pieces.count)
                    })
    }

    /// The files of `s` a browser may fetch: those its manifest names, its sheet and
    /// thumbnail, and its timelines; each a plain file present in the folder.
    public func files(_ s: SessionFolder) -> [File] {
        var named: [(String, String)] = []
        if let m = s.manifest {
            named += m.cameras.map { ($0.file, "camera") } + m.cameras.compactMap { $0.soundFile.map { ($0, "sound") } }
            named.append((m.composite.file, "combined"))
            named += (m.renders ?? []).map { ($0.file, "render") }
            named.append((SessionManifest.fileName, "manifest"))
            if let sheet = m.contactSheet { named += [(sheet.file, "contactSheet"), (sheet.thumbnail, "thumbnail")] }
        }
        named += ExportFormat.allCases.map { ((SessionExporter.defaultPath(s, format: $0) as NSString).lastPathComponent, "timeline") }
        var seen = Set<String>()
        return named.compactMap { name, kind in
            guard seen.insert(name).inserted, SessionExporter.problem(ofFile: name, in: s.path) == nil else { return nil }
            let bytes = ((try? FileManager.default.attributesOfItem(atPath: s.path + "/" + name))?[.size] as? NSNumber)?.int64Value ?? 0
            return File(name: name, kind: kind, bytes: bytes)
        }
    }

    /// The path of `name` in session `id` when the session lists it, else nil.
    public func path(session id: String, name: String) -> String? {
        guard let s = try? session(id), files(s).contains(where: { $0.name == name }) else { return nil }
        return s.path + "/" + name
    }
}
