import DualCamCore
import Foundation

/// One session folder on disk, finished (it has a manifest) or not.
public struct SessionFolder: Sendable {
    /// The folder's absolute path.
    public let path: String
    /// The folder's name, which is the session ID.
    public let id: String
    /// What was wrong with the manifest, when it exists and cannot be read.
    public let manifestProblem: String?
    /// What was wrong with `session.json`, for an unfinished session whose record cannot
    /// be read (so `resume` cannot finish it).
    public let recordProblem: String?
    let manifest: SessionManifest?

    init(path: String) {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        id = (self.path as NSString).lastPathComponent
        if FileManager.default.fileExists(atPath: self.path + "/" + SessionManifest.fileName) {
            do {
                manifest = try SessionManifest.read(sessionDirectory: self.path)
                manifestProblem = nil
            } catch {
                manifest = nil
                manifestProblem = "\(error)"
            }
        } else {
            manifest = nil
            manifestProblem = nil
        }
        if manifest == nil && manifestProblem == nil
            && FileManager.default.fileExists(atPath: self.path + "/" + SessionRecord.fileName) {
            do {
                _ = try SessionRecord.load(from: self.path)
                recordProblem = nil
            } catch {
                recordProblem = "\(error)"
            }
        } else {
            recordProblem = nil
        }
    }

    /// Whether `path` looks like a session folder: the recorder writes `session.json`
    /// and `segments/` first, then the files, and the manifest last.
    static func isSession(_ path: String) -> Bool {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
        if [SessionManifest.fileName, SessionRecord.fileName, "segments"].contains(where: { fm.fileExists(atPath: path + "/" + $0) }) {
            return true
        }
        let names = (try? fm.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { $0.hasPrefix("DualCam_") && $0.hasSuffix(".mp4") }
    }

    /// A session whose manifest is missing never finished: `resume` completes it.
    public var isFinished: Bool { manifest != nil }

    /// When it started: the manifest's wall time, else the ID's stamp, else the folder's date.
    public var date: Date? {
        if let text = manifest?.startWallTime, let date = ISO8601DateFormatter().date(from: text) { return date }
        let stamp = DateFormatter()
        stamp.locale = Locale(identifier: "en_US_POSIX")
        stamp.dateFormat = "yyyyMMdd_HHmmss"
        if let date = stamp.date(from: String(id.prefix(15))) { return date }
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    public var durationSeconds: Double? { manifest?.durationSeconds }

    /// The manifest's warnings; none for a session without one.
    public var warnings: [String] { manifest?.warnings ?? [] }

    /// Every byte in the folder, segments included (what deleting it frees).
    public var totalBytes: Int64 {
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: path) else { return 0 }
        var total: Int64 = 0
        while let name = walker.nextObject() as? String {
            if let attributes = try? fm.attributesOfItem(atPath: path + "/" + name),
               attributes[.type] as? FileAttributeType == .typeRegular {
                total += (attributes[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        return total
    }

    public var sizeText: String { LibraryFormat.bytes(totalBytes) }

    /// The layout the composite started with, as the manifest records it.
    public var recordedLayout: LayoutSpec? {
        manifest.flatMap { try? LayoutSpec(parsing: $0.composite.layout, edition: LayoutEdition(stored: $0.composite.layoutEdition)) }
    }

    /// The composite's layout, with the number of changes made while recording.
    public var layoutText: String {
        guard let composite = manifest?.composite else { return "–" }
        let changes = composite.timeline.count
        return composite.layout + (changes == 0 ? "" : " (+\(changes) change\(changes == 1 ? "" : "s"))")
    }

    /// Files the manifest names that are not in the folder.
    var missingFiles: [String] {
        guard let manifest else { return [] }
        return (manifest.cameras.map(\.file) + [manifest.composite.file])
            .filter { !FileManager.default.fileExists(atPath: path + "/" + $0) }
    }

    /// The status in one word, for scripts: complete, incomplete (files missing),
    /// unfinished (no manifest yet), busy (a coordinator holds it now), damaged.
    public var state: String {
        if manifestProblem != nil { return "damaged" }
        guard manifest != nil else {
            if SessionLock.isHeld(sessionDirectory: path) { return "busy" }
            return recordProblem == nil ? "unfinished" : "damaged"
        }
        return missingFiles.isEmpty ? "complete" : "incomplete"
    }

    public var status: String {
        if let manifestProblem {
            let rebuildable = recordProblem == nil && FileManager.default.fileExists(atPath: path + "/" + SessionRecord.fileName)
            return "damaged: \(manifestProblem)" + (rebuildable ? " — `dualcam-coordinator rebuild-manifest \(id)` rebuilds it" : "")
        }
        guard manifest != nil else {
            if SessionLock.isHeld(sessionDirectory: path) { return "recording or resuming now" }
            if let recordProblem { return "damaged: \(recordProblem)" }
            return "unfinished — run `dualcam-coordinator resume \(id)`"
        }
        let missing = missingFiles
        if !missing.isEmpty { return "incomplete: missing \(missing.joined(separator: ", "))" }
        return manifest?.composite.recomposedAt == nil ? "complete" : "complete, recomposed"
    }
}
