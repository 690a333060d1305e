import Foundation

/// `list --json` and `show --json`: the library for scripts, in fields documented in
/// docs/LIBRARY-JSON.md and kept stable (`format` changes when a field changes meaning;
/// fields are only ever added within a format).
public enum LibraryJSON {
    public static let format = 1

    /// One session in the listing.
    struct Entry: Encodable {
        var id: String
        var path: String
        /// complete, incomplete, unfinished, busy, damaged (see `SessionFolder.state`).
        var state: String
        /// The same in words, with what to do (as `list` prints it).
        var status: String
        /// ISO 8601, or nil when the folder says nothing of its date.
        var date: String?
        var durationSeconds: Double?
        var sizeBytes: Int64
        var layout: String?
        var files: Files?
    }

    struct Files: Encodable {
        var cameras: [String]
        var sound: [String]
        var combined: String
        var renders: [String]
        /// Other recorders' aligned copies (`import`), oldest first.
        var imports: [String]
        var manifest: String
        /// The contact sheet and thumbnail (JPEG), nil when the session has none (recorded
        /// before them, or the sheet could not be written).
        var contactSheet: String?
        var thumbnail: String?
        /// The editors' timelines in the folder, by format (fcpxml, xmeml, otio, edl).
        var timelines: [String: String]
        /// The timecode at T0 every file counts from, nil for sessions from before it.
        var timecode: String?
    }

    struct Listing: Encodable {
        var format: Int
        var library: [String]
        var sessions: [Entry]
    }

    struct Shown: Encodable {
        var format: Int
        var session: Entry
        /// manifest.json as it is (nil for an unfinished or damaged session).
        var manifest: SessionManifest?
        /// Every file in the folder with its size (segments/ summed).
        var contents: [Content]
        /// The director's cuts in the combined file, or else in the newest render it cut
        /// (absent when no file of the session was cut by the director).
        var director: Director?
    }

    struct Director: Encodable {
        /// The file the cuts are in.
        var file: String
        var style: String
        var cuts: [SessionManifest.DirectorRecord.Cut]
    }

    struct Content: Encodable {
        var name: String
        var bytes: Int64
    }

    public static func list(_ sessions: [SessionFolder], library: [String]) throws -> String {
        try encode(Listing(format: format, library: library, sessions: sessions.map(entry)))
    }

    public static func show(_ session: SessionFolder) throws -> String {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: session.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        let contents = names.map { name -> Content in
            let path = session.path + "/" + name
            var isDirectory: ObjCBool = false
            _ = fm.fileExists(atPath: path, isDirectory: &isDirectory)
            let bytes = isDirectory.boolValue ? SessionFolder(path: path).totalBytes
                : ((try? fm.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
            return Content(name: name, bytes: bytes)
        }
        let cut = session.manifest.flatMap { m in ([m.composite] + (m.renders ?? []).reversed()).first { $0.director != nil } }
        let director = cut.flatMap { c in c.director.map { Director(file: c.file, style: $0.style, cuts: $0.cuts) } }
        return try encode(Shown(format: format, session: entry(session), manifest: session.manifest, contents: contents,
                                director: director))
    }

    static func entry(_ s: SessionFolder) -> Entry {
        let files = s.manifest.map { m in
            Files(cameras: m.cameras.map { s.path + "/" + $0.file }, sound: m.cameras.compactMap(\.soundFile).map { s.path + "/" + $0 },
                  combined: s.path + "/" + m.composite.file, renders: (m.renders ?? []).map { s.path + "/" + $0.file },
                  imports: (m.imports ?? []).map { s.path + "/" + $0.file },
                  manifest: s.path + "/" + SessionManifest.fileName,
                  contactSheet: present(m.contactSheet?.file, in: s), thumbnail: present(m.contactSheet?.thumbnail, in: s),
                  timelines: Dictionary(uniqueKeysWithValues: ExportFormat.allCases.compactMap { format in
                      let path = SessionExporter.defaultPath(s, format: format)
                      return FileManager.default.fileExists(atPath: path) ? (format.rawValue, path) : nil
                  }),
                  timecode: m.timecode)
        }
        return Entry(id: s.id, path: s.path, state: s.state, status: s.status,
                     date: s.date.map { ISO8601DateFormatter().string(from: $0) }, durationSeconds: s.durationSeconds,
                     sizeBytes: s.totalBytes, layout: s.manifest.map { _ in s.layoutText }, files: files)
    }

    /// The file's path when the session holds it.
    static func present(_ name: String?, in s: SessionFolder) -> String? {
        guard let name, SessionFileName.isPlain(name), FileManager.default.fileExists(atPath: s.path + "/" + name) else { return nil }
        return s.path + "/" + name
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
