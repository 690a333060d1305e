import DualCamCore
import DualCamMedia
import Foundation

/// A finished session as an editor's timeline: each file probed for where it starts, how
/// long it is and its start timecode (what an editor will read from it), placed on the
/// session's shared timeline, and written in one of the `ExportFormat`s.
public enum SessionExporter {
    /// The timeline file's default path: beside the manifest, named for the session.
    public static func defaultPath(_ session: SessionFolder, format: ExportFormat) -> String {
        session.path + "/DualCam_" + session.id + "." + format.fileExtension
    }

    /// Writes the session's timeline in `format` to `out` (default: in the session folder)
    /// and returns its path. Written under a temporary name and renamed, so a failure
    /// leaves nothing partial.
    @discardableResult
    public static func export(_ session: SessionFolder, format: ExportFormat, out: String? = nil,
                              absolute: Bool = false) throws -> String {
        let target = URL(fileURLWithPath: out ?? defaultPath(session, format: format)).standardizedFileURL.path
        let timeline = try self.timeline(session, absolute: absolute, relativeTo: (target as NSString).deletingLastPathComponent)
        try write(format.text(timeline), to: target)
        return target
    }

    /// The session's timeline with media paths relative to `directory` (or absolute).
    static func timeline(_ session: SessionFolder, absolute: Bool, relativeTo directory: String) throws -> EditTimeline {
        guard let manifest = session.manifest else {
            if let problem = session.manifestProblem {
                throw CoordinatorError("session \(session.id) is damaged (\(problem)): nothing exported; "
                    + "`dualcam-coordinator rebuild-manifest \(session.id)` rebuilds it")
            }
            throw CoordinatorError("session \(session.id) is unfinished (no manifest.json): nothing exported; "
                + "run `dualcam-coordinator resume \(session.id)` first")
        }
        guard let rate = FrameRate(parsing: manifest.settings.fps) else {
            throw CoordinatorError("the manifest's frame rate '\(manifest.settings.fps)' is not one DualCam reads: nothing exported")
        }
        let names = manifest.cameras.map(\.file) + manifest.cameras.compactMap(\.soundFile) + [manifest.composite.file]
        let problems = names.compactMap { problem(ofFile: $0, in: session.path) }
        guard problems.isEmpty else {
            throw CoordinatorError("session \(session.id) cannot be exported: \(problems.joined(separator: "; ")); nothing written")
        }
        func mediaPath(_ name: String) -> String {
            let full = session.path + "/" + name
            return absolute ? full : relativePath(full, from: directory)
        }
        // A file without a timecode track starts at 00:00:00:00 for an editor; the session's
        // own timecode is then counted from there too, so the clips still line up.
        let sessionStart = SessionTimecode.parse(manifest.timecode, fps: manifest.settings.fps) ?? SMPTETimecode(frames: 0, rate: rate)
        func clip(name: String, role: String, file: String, sound: String?) throws -> EditTimeline.Clip {
            let probe = try MediaProbe.probe(path: session.path + "/" + file)
            guard let first = probe.frameTimestampsNanoseconds.first, let last = probe.frameTimestampsNanoseconds.last else {
                throw CoordinatorError("\(file) holds no frame: nothing exported")
            }
            let placement = ClipPlacement(firstNanoseconds: first, endNanoseconds: last + rate.periodNanoseconds, rate: rate)
            let start = probe.timecode.flatMap { SMPTETimecode(parsing: $0, rate: rate) }
                ?? SMPTETimecode(frames: 0, rate: rate)
            let soundInfo = try sound.map { name -> EditTimeline.Sound in
                guard let info = WAVInfo(path: session.path + "/" + name) else {
                    throw CoordinatorError("\(name) is not a WAV file: nothing exported")
                }
                return .init(path: mediaPath(name), channels: info.channels, sampleRate: info.sampleRate)
            }
            return EditTimeline.Clip(name: name, role: role, path: mediaPath(file), placement: placement, sourceStart: start,
                                     hasAudio: probe.audio != nil, sound: soundInfo)
        }
        let cameras = try manifest.cameras.map { camera in
            try clip(name: SessionNaming.cameraName(ofFile: camera.file), role: camera.statistics.role, file: camera.file,
                     sound: camera.soundFile)
        }
        let combined = try clip(name: "Combined", role: "combined", file: manifest.composite.file, sound: nil)
        var timeline = EditTimeline(name: "DualCam " + manifest.sessionID, rate: rate, width: manifest.settings.width,
                                    height: manifest.settings.height, start: sessionStart, cameras: cameras, combined: combined)
        // An imported video is one more angle, its aligned sound beside it as a camera's WAV.
        for imported in manifest.imports ?? [] {
            guard let video = imported.video else { continue }
            timeline.cameras.append(try clip(name: imported.name, role: "import", file: video.file, sound: imported.file))
        }
        for imported in manifest.imports ?? [] where imported.video == nil {
            guard problem(ofFile: imported.file, in: session.path) == nil, let info = WAVInfo(path: session.path + "/" + imported.file) else {
                throw CoordinatorError("session \(session.id) cannot be exported: the import \(imported.name)'s file \(imported.file) is missing "
                    + "or damaged (remove it with `dualcam-coordinator import \(session.id) --remove \(imported.name)`); nothing written")
            }
            let seconds = Double(info.frames) / Double(info.sampleRate)
            timeline.imports.append(.init(name: imported.name, sound: .init(path: mediaPath(imported.file), channels: info.channels,
                                                                            sampleRate: info.sampleRate),
                                          durationFrames: Int64((seconds * Double(rate.numerator) / Double(rate.denominator)).rounded(.down))))
        }
        // The director's cut: the take's own combined file's, else the newest render's.
        if let cut = ([manifest.composite] + (manifest.renders ?? []).reversed()).first(where: { $0.director != nil }),
           let director = cut.director {
            if cut.file != manifest.composite.file {
                guard problem(ofFile: cut.file, in: session.path) == nil else {
                    throw CoordinatorError("session \(session.id) cannot be exported: the director's render \(cut.file) is missing; nothing written")
                }
                timeline.programmeComposite = try clip(name: "Director", role: "combined", file: cut.file, sound: nil)
            }
            let nodes = manifest.cameras.map(\.statistics.name)
            timeline.programme = ProgrammeShot.shots(
                cuts: director.cuts.map { c in (c.at, c.shot.compactMap { nodes.firstIndex(of: $0) }, c.shot) },
                rate: rate, cameraCount: cameras.count, endFrame: timeline.durationFrames)
        }
        return timeline
    }

    /// What keeps `name` from being exported: a name leading out of the folder, a file
    /// that is missing, or one that is not a plain file (a symbolic link to elsewhere).
    static func problem(ofFile name: String, in directory: String) -> String? {
        guard SessionFileName.isPlain(name) || SessionFileName.isImport(name) else { return "the manifest names '\(name)', which is not a file inside the session folder" }
        var status = stat()
        guard lstat(directory + "/" + name, &status) == 0 else { return "\(name) is missing" }
        guard status.st_mode & S_IFMT == S_IFREG else { return "\(name) is not a plain file (a link or a folder)" }
        return nil
    }

    /// `path` as seen from `directory`, both absolute: `../Session/x.mp4` when the timeline
    /// is written elsewhere, `x.mp4` beside it.
    static func relativePath(_ path: String, from directory: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, base.count) && target[common] == base[common] { common += 1 }
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }

    static func write(_ text: String, to path: String) throws {
        let temporary = (path as NSString).deletingLastPathComponent + "/.export-\(getpid())-" + (path as NSString).lastPathComponent
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
            throw CoordinatorError("cannot write \(path): \(String(cString: strerror(errno))); give --out a folder you can write")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw CoordinatorError("cannot write \(path): \(reason)")
        }
    }
}
