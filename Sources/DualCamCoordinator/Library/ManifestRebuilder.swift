import DualCamCore
import DualCamMedia
import DualCamProtocol
import Foundation
import Logging

/// `rebuild-manifest`: a session whose `manifest.json` is damaged or missing, rebuilt
/// offline from what its folder holds: `session.json` (settings, agents, start and stop)
/// and the verified segments under `segments/`, which give the per-camera files, the
/// composite and a new manifest, the same way `resume` rebuilds them. No agent is asked:
/// the agents' own figures (frames they captured, their clocks) and the layout changes
/// made while recording were only in the lost manifest, and the new one says so.
enum ManifestRebuilder {
    static let setAsideName = "manifest.damaged.json"

    static func run(_ session: SessionFolder, logger: Logger,
                    progress: @escaping @Sendable (String) -> Void) async throws -> TakeResult {
        let lock = try SessionLock(sessionDirectory: session.path, purpose: "rebuilding its manifest")
        defer { withExtendedLifetime(lock) {} }
        try SessionFileName.refuseLinks(in: session.path, doing: "rebuilding")
        // Read again under the lock: another coordinator may have finished it meanwhile.
        let current = SessionFolder(path: session.path)
        guard current.manifest == nil else {
            throw CoordinatorError("the manifest of \(session.id) is readable: nothing to rebuild (`dualcam-coordinator show \(session.id)`)")
        }
        let record: SessionRecord
        do {
            record = try SessionRecord.load(from: session.path)
        } catch {
            throw CoordinatorError("cannot rebuild \(session.id) without its record: \(error)")
        }
        let plan = try record.plan(outputDirectory: (session.path as NSString).deletingLastPathComponent)
        let roles = record.agents.map { Dualcam_V1_Role(name: $0.role) ?? .unspecified }
        let names = SessionNaming.cameraNames(roles: roles)
        let receivers = try names.map { try SegmentReceiver(sessionDirectory: session.path, camera: $0) }
        guard receivers.contains(where: { !$0.received.isEmpty }) else {
            throw CoordinatorError("\(session.path)/segments holds no segment: there is nothing to rebuild \(session.id) from")
        }
        // A session stopped by Enter or --duration has its stop in the record; one whose
        // coordinator died first ends where its last segment held here ends.
        let heldEnd = receivers.flatMap { $0.spans.values.map { $0.first + $0.duration } }.max() ?? 0
        let stop = record.stopSharedNanoseconds > 0 ? record.stopSharedNanoseconds : record.t0SharedNanoseconds + heldEnd
        let manifestPath = session.path + "/" + SessionManifest.fileName
        if FileManager.default.fileExists(atPath: manifestPath) {
            // Kept for whoever wants to read what is left of it; never deleted.
            guard rename(manifestPath, session.path + "/" + setAsideName) == 0 else {
                throw CoordinatorError("cannot set \(manifestPath) aside: \(String(cString: strerror(errno)))")
            }
            progress("the damaged manifest is now \(session.path)/\(setAsideName)")
        }

        let outputs = try SessionOutputs(plan: plan, sessionDirectory: session.path, sessionID: record.sessionID,
                                         cameraNames: names, roles: record.agents.map(\.role),
                                         wallStart: Date(timeIntervalSince1970: record.wallStartUnixSeconds),
                                         timecode: SessionTimecode.parse(record.timecode, fps: record.fps), logger: logger)
        var warnings = ["manifest rebuilt by rebuild-manifest from the segments in the folder: the frames each agent "
            + "captured, its clock figures and any layout changes made while recording are not known"]
        var statistics: [CameraStatistics] = []
        for (i, receiver) in receivers.enumerated() {
            let held = receiver.received.keys.sorted()
            var placed = 0
            for index in held {
                guard let path = receiver.received[index], let span = receiver.spans[index] else { continue }
                outputs.add(segment: path, index: index, camera: i, firstPresentationNanoseconds: span.first, durationNanoseconds: span.duration)
                placed += 1
            }
            outputs.stopAwaiting(camera: i)
            let missing = (0..<((held.last ?? -1) + 1)).filter { receiver.received[$0] == nil || receiver.spans[$0] == nil }
            if !missing.isEmpty { warnings.append("\(names[i]): segments \(missing) are not in the folder; its file has a gap there") }
            progress("  \(names[i]): \(placed) segments")
            var s = CameraStatistics(name: record.agents[i].name, role: record.agents[i].role, framesCaptured: 0, framesDropped: 0,
                                     segments: placed, clockOffsetNanoseconds: 0, clockRatePPM: 0, clockErrorBoundNanoseconds: 0)
            s.missingSegments = missing
            statistics.append(s)
        }
        let result = try await outputs.finish(t0Shared: record.t0SharedNanoseconds, durationNanoseconds: stop - record.t0SharedNanoseconds,
                                              cameras: statistics, deviceIDs: record.agents.map(\.deviceID), warnings: warnings)
        do { _ = try outputs.addSyncReports() } catch { progress("sync checks not written into the manifest: \(error)") }
        // The frames in each file stand in for the agents' counts, which were lost.
        var manifest = try SessionManifest.read(sessionDirectory: session.path)
        for i in manifest.cameras.indices {
            manifest.cameras[i].statistics.framesCaptured = (try? videoFrames(session.path + "/" + manifest.cameras[i].file)) ?? 0
        }
        let kept = keptImports(damaged: session.path + "/" + setAsideName, sessionDirectory: session.path)
        manifest.imports = kept.imports
        manifest.warnings += kept.warnings
        try manifest.write(sessionDirectory: session.path)
        return result
    }

    /// Other recorders' imports, which only the manifest describes: those the damaged one
    /// still holds whole, with their files in `imports/`, are kept; files it no longer
    /// describes are named in a warning, as their originals can be imported again.
    static func keptImports(damaged path: String, sessionDirectory: String) -> (imports: [ImportRecord]?, warnings: [String]) {
        var kept: [ImportRecord] = []
        if let data = FileManager.default.contents(atPath: path),
           let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let entries = top["imports"] as? [Any] {
            for entry in entries {
                guard let json = try? JSONSerialization.data(withJSONObject: entry),
                      let record = try? JSONDecoder().decode(ImportRecord.self, from: json),
                      ([record.file, record.original] + (record.video.map { [$0.file] } ?? [])).allSatisfy({
                          SessionFileName.isImport($0) && FileManager.default.fileExists(atPath: sessionDirectory + "/" + $0)
                      }) else { continue }
                kept.append(record)
            }
        }
        var warnings: [String] = []
        if !kept.isEmpty {
            warnings.append("\(kept.count) import(s) kept from the damaged manifest: \(kept.map(\.name).joined(separator: ", "))")
        }
        let described = Set(kept.flatMap { [$0.file, $0.original] + ($0.video.map { [$0.file] } ?? []) })
        let folder = sessionDirectory + "/" + SessionImporter.folder
        let present = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") && $0 != "originals" }
            .map { SessionImporter.folder + "/" + $0 }
            + ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/originals")) ?? []).map { SessionImporter.folder + "/originals/" + $0 }
        let stray = present.filter { !described.contains($0) }.sorted()
        if !stray.isEmpty {
            warnings.append("\(SessionImporter.folder)/ holds files no import describes any more (\(stray.joined(separator: ", "))): "
                + "import the originals again with `dualcam-coordinator import`, or remove them")
        }
        return (kept.isEmpty ? nil : kept, warnings)
    }

    private static func videoFrames(_ path: String) throws -> Int {
        let demuxer = try MediaDemuxer(path: path)
        var count = 0
        while try demuxer.nextVideoPacket() != nil { count += 1 }
        return count
    }
}

extension SessionLibrary {
    /// Rebuilds the manifest of a session inside the library from its record and
    /// segments (see ManifestRebuilder); a folder elsewhere is refused like `delete`.
    public func rebuildManifest(_ session: SessionFolder, logger: Logger,
                                progress: @escaping @Sendable (String) -> Void) async throws -> TakeResult {
        try checkInside(session, doing: "rebuilding")
        return try await ManifestRebuilder.run(session, logger: logger, progress: progress)
    }
}

extension SessionLibrary {
    /// `resume --abandon`: an unfinished session finished from the segments held here,
    /// asking no agent; the agents that may hold (or still record) more of it are named.
    public func abandon(_ session: SessionFolder, logger: Logger,
                        progress: @escaping @Sendable (String) -> Void) async throws -> TakeResult {
        let record = try SessionRecord.load(from: session.path)
        let agents = record.agents.map(\.name).joined(separator: ", ")
        progress("abandoning \(record.sessionID): finishing it from the segments held here, asking no agent; "
                 + "what \(agents) recorded after them is not collected"
                 + (record.stopSharedNanoseconds == 0 ? ", and an agent still recording it records on until it is stopped or restarted" : ""))
        return try await rebuildManifest(session, logger: logger, progress: progress)
    }
}
