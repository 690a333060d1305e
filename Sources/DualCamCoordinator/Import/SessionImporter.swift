import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation

/// What one import placed, for the command's report.
public struct ImportOutcome: Sendable {
    public var name: String
    public var file: String
    public var offsetSeconds: Double
    public var driftPPM: Double
    public var confidence: Double
    public var pieces: Int
    public var beforeT0Seconds: Double
    public var lipSyncMs: [Double?]
    public var alignSeconds: Double
    /// A video's retimed copy: its path, its first picture's session time, pictures
    /// written and left out before T0.
    public var video: (file: String, firstPictureSeconds: Double, pictures: Int, leftOut: Int)?
}

/// `import`: other recorders' files into a finished session. Every file is checked and
/// aligned before anything is written, the copies are made in a scratch folder and moved
/// into place, and the manifest is written last, so a refusal or a crash leaves the
/// session as it was.
public enum SessionImporter {
    public static let folder = "imports"

    /// `sourceNames`: what the manifest says each file came from (default: its path); the
    /// studio's upload names the browser's file instead of its scratch copy. `clock` times
    /// the alignment and dates the import, as the recomposer's does.
    public static func run(session: SessionFolder, files: [String], name: String?, library: SessionLibrary,
                           sourceNames: [String]? = nil, clock: any TimeSource = SystemClock(),
                           progress: (String) -> Void) throws -> [ImportOutcome] {
        let lock = try lockFinished(session, library: library, doing: "import into")
        defer { withExtendedLifetime(lock) {} }
        var manifest = try SessionManifest.read(sessionDirectory: session.path)
        let sources = try files.map { try ImportSource(path: $0) }
        let names = try ImportNames.choose(for: files, given: name, taken: (manifest.imports ?? []).map(\.name))

        progress("reading the take's sound")
        let reference = try SessionSound.reference(session: session, manifest: manifest)
        var placed: [(ImportSource, SoundAlignmentResult, Double)] = []
        for source in sources {
            progress("aligning \(source.path) (\(source.formatDescription))")
            let started = clock.now
            let sound = try source.analysisSound()
            do {
                let result = try SoundAlignment.align(reference: reference, file: sound)
                placed.append((source, result, Double(clock.now - started) / 1e9))
            } catch {
                let said = "\(error)"
                throw CoordinatorError("cannot import '\(source.path)': \(said)\(said.hasSuffix("?") ? "" : ".") "
                    + "Nothing in session \(session.id) was changed")
            }
        }

        var status = stat()
        if lstat(session.path + "/" + folder, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw CoordinatorError("cannot import into session \(session.id): its \(folder) is not a folder (a link?), and DualCam "
                + "never writes through one; remove it (rm) and try again")
        }
        let scratch = session.path + "/" + folder + "/.incoming-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch + "/originals", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var records: [ImportRecord] = []
        var outcomes: [ImportOutcome] = []
        for (index, ((source, alignment, alignSeconds), name)) in zip(placed, names).enumerated() {
            progress("writing \(name) on the session's timeline")
            let aligned = "\(name).wav"
            let original = "originals/\(name)." + ((source.path as NSString).pathExtension.isEmpty ? "bin" : (source.path as NSString).pathExtension)
            let before = try AlignedSoundWriter.write(source, alignment: alignment, to: scratch + "/" + aligned,
                                                      broadcast: ImportBroadcast.metadata(name: name, source: source, manifest: manifest))
            let lipSync = try AlignedSoundWriter.lipSync(alignedPath: scratch + "/" + aligned, reference: reference)
            var video: ImportRecord.Video?
            if source.hasPictures {
                progress("copying \(name)'s pictures onto the session's timeline")
                let start = SessionTimecode.parse(manifest.timecode, fps: manifest.settings.fps)
                let written = try AlignedVideoWriter.write(source, alignment: alignment, alignedSound: scratch + "/" + aligned,
                                                           to: scratch + "/\(name).mp4") { first in
                    SessionTimecode.tags(camera: name, role: "import", sessionID: manifest.sessionID, creation: nil,
                                         timecode: start?.at(presentationNanoseconds: first))
                }
                video = ImportRecord.Video(file: folder + "/\(name).mp4", firstPictureSeconds: written.firstPictureSeconds,
                                           pictures: written.pictures, leftOutBeforeT0: written.leftOutBeforeT0)
            }
            try copyOriginal(source.path, to: scratch + "/" + original)
            let record = ImportRecord(
                name: name, file: folder + "/" + aligned, original: folder + "/" + original,
                source: sourceNames.map { $0[index] } ?? source.path,
                kind: source.hasPictures ? "video" : "sound", video: video, format: source.formatDescription,
                durationSeconds: alignment.fileSeconds, offsetSeconds: alignment.offsetSeconds, driftPpm: alignment.driftPPM,
                confidence: alignment.confidence,
                pieces: alignment.pieces.map {
                    ImportRecord.Piece(fileStartSeconds: $0.fileStart, fileEndSeconds: $0.fileEnd, offsetSeconds: $0.sessionStart,
                                       driftPpm: $0.driftPPM, matchedWindows: $0.matched, residualMicroseconds: $0.residualMicroseconds)
                },
                lipSync: lipSync, beforeT0Seconds: before, importedAt: ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: clock.wallSeconds)),
                alignSeconds: alignSeconds)
            records.append(record)
            outcomes.append(ImportOutcome(name: name, file: session.path + "/" + record.file, offsetSeconds: record.offsetSeconds,
                                          driftPPM: record.driftPpm, confidence: record.confidence, pieces: record.pieces.count,
                                          beforeT0Seconds: before, lipSyncMs: [lipSync.startMs, lipSync.middleMs, lipSync.endMs],
                                          alignSeconds: alignSeconds, video: video.map { (session.path + "/" + $0.file, $0.firstPictureSeconds, $0.pictures, $0.leftOutBeforeT0) }))
        }
        let fm = FileManager.default
        var moved: [(String, String)] = []
        do {
            try fm.createDirectory(atPath: session.path + "/" + folder + "/originals", withIntermediateDirectories: true)
            for record in records {
                for relative in [record.file, record.original] + (record.video.map { [$0.file] } ?? []) {
                    let from = scratch + "/" + String(relative.dropFirst(folder.count + 1)), to = session.path + "/" + relative
                    try fm.moveItem(atPath: from, toPath: to)
                    moved.append((from, to))
                }
            }
            manifest.imports = (manifest.imports ?? []) + records
            try manifest.write(sessionDirectory: session.path)
        } catch {
            for (from, to) in moved.reversed() { try? fm.moveItem(atPath: to, toPath: from) }
            throw CoordinatorError("could not add the imports to session \(session.id) (\(error.localizedDescription)); "
                + "nothing in it was changed")
        }
        refreshTimelines(session, progress: progress)
        return outcomes
    }

    /// `import --remove NAME`: the import's copies and its manifest entry go; nothing else.
    @discardableResult
    public static func remove(session: SessionFolder, name: String, library: SessionLibrary) throws -> [String] {
        let lock = try lockFinished(session, library: library, doing: "remove an import from")
        defer { withExtendedLifetime(lock) {} }
        var manifest = try SessionManifest.read(sessionDirectory: session.path)
        let imports = manifest.imports ?? []
        guard let index = imports.firstIndex(where: { $0.name == name }) else {
            throw CoordinatorError("session \(session.id) has no import named '\(name)'"
                + (imports.isEmpty ? " (it has none)" : "; its imports: \(imports.map(\.name).joined(separator: ", "))"))
        }
        let record = imports[index]
        manifest.imports = imports.count == 1 ? nil : imports.enumerated().filter { $0.offset != index }.map(\.element)
        // The manifest first: a crash then leaves stray files, never an entry without its file.
        try manifest.write(sessionDirectory: session.path)
        var removed: [String] = []
        for relative in [record.file, record.original] + (record.video.map { [$0.file] } ?? []) where SessionFileName.isImport(relative) {
            if (try? FileManager.default.removeItem(atPath: session.path + "/" + relative)) != nil { removed.append(relative) }
        }
        refreshTimelines(session) { _ in }
        return removed
    }

    /// The timelines the session folder already holds (the take writes FCPXML and OTIO)
    /// written again, so that they carry the imports as they now are.
    private static func refreshTimelines(_ session: SessionFolder, progress: (String) -> Void) {
        let fresh = SessionFolder(path: session.path)
        for format in ExportFormat.allCases where FileManager.default.fileExists(atPath: SessionExporter.defaultPath(fresh, format: format)) {
            do {
                try SessionExporter.export(fresh, format: format)
            } catch {
                progress("the session's \(format.fileExtension) timeline could not be written again: \(error)")
            }
        }
    }

    private static func lockFinished(_ session: SessionFolder, library: SessionLibrary, doing action: String) throws -> SessionLock {
        if SessionLock.isHeld(sessionDirectory: session.path) {
            throw CoordinatorError("cannot \(action) session \(session.id) now: it is still being recorded (or written by "
                + "another dualcam-coordinator). Try again once that take has finished")
        }
        guard session.isFinished else {
            throw CoordinatorError("cannot \(action) session \(session.id): it has not finished (no readable manifest.json"
                + (session.manifestProblem.map { ": \($0)" } ?? "") + "). Finish it with `dualcam-coordinator resume \(session.id)` first")
        }
        try library.checkInside(session, doing: "changing")
        return try SessionLock(sessionDirectory: session.path, purpose: "importing")
    }

    /// A hard link where the file system allows (an hour of video is not copied twice on
    /// one disk), a copy elsewhere.
    private static func copyOriginal(_ from: String, to: String) throws {
        if link(from, to) == 0 { return }
        do {
            try FileManager.default.copyItem(atPath: from, toPath: to)
        } catch {
            throw CoordinatorError("could not copy '\(from)' into the session: \(error.localizedDescription)")
        }
    }
}
