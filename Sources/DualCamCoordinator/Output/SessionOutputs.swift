import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import Logging

/// The session folder as it fills: each camera's remuxed file and the live composite,
/// each worked on its own serial queue (FFmpeg calls block; they stay off Swift's
/// cooperative pool). Finishing waits for both and writes manifest.json.
final class SessionOutputs: @unchecked Sendable {
    // Invariant: `remuxes` is touched only on `remuxQueue`; `firstError` only under `lock`;
    // `finished` is written by `finish` and read by `addSyncReports`, which the one
    // caller runs after `finish` has returned.
    private let remuxQueue = DispatchQueue(label: "dualcam.remux")
    private let lock = NSLock()
    private var remuxes: [CameraRemux]
    private var firstError: String?
    private let composer: LiveComposer
    /// The manifest as `finish` wrote it, for the sync reports added after.
    private var finished: (manifest: SessionManifest, durationNanoseconds: Int64)?
    /// The process's CPU from here to `finish` (written there, read after it returns).
    private let cpuMeter = CoordinatorCPU.Meter()
    private(set) var cpu: CoordinatorCPU?
    let plan: TakePlan
    let sessionDirectory: String
    let sessionID: String
    let cameraNames: [String]
    /// Each camera's MP4, in camera order.
    let cameraFiles: [String]
    let wallStart: Date
    let stamp: String
    let logger: Logger

    /// The timecode at T0 (nil at a rate no timecode track can carry, or for a session
    /// recorded before files had one).
    let timecode: SMPTETimecode?

    init(plan: TakePlan, sessionDirectory: String, sessionID: String, cameraNames: [String], roles: [String],
         wallStart: Date, timecode: SMPTETimecode?, logger: Logger, compositeMeasurement: CompositeProbe.Pending? = nil) throws {
        self.timecode = timecode
        self.plan = plan
        self.sessionDirectory = sessionDirectory
        self.sessionID = sessionID
        self.cameraNames = cameraNames
        self.wallStart = wallStart
        self.logger = logger
        let stamp = SessionNaming.stamp(for: wallStart)
        self.stamp = stamp
        let creation = Int64(wallStart.timeIntervalSince1970)
        let files = cameraNames.map { sessionDirectory + "/" + SessionNaming.file($0, stamp: stamp) }
        cameraFiles = files
        remuxes = files.indices.map { i in
            CameraRemux(outputPath: files[i],
                        tags: SessionTimecode.tags(camera: cameraNames[i], role: i < roles.count ? roles[i] : "camera",
                                                   sessionID: sessionID, creation: creation, timecode: nil),
                        sessionTimecode: timecode)
        }
        composer = try LiveComposer(
            outputPath: sessionDirectory + "/" + SessionNaming.file("Combined", stamp: stamp),
            streamCount: cameraNames.count, plan: plan,
            tags: SessionTimecode.tags(camera: "Combined", role: "combined", sessionID: sessionID, creation: creation,
                                       timecode: timecode),
            cameraNames: cameraNames, measurement: compositeMeasurement, logger: logger)
    }

    private func record(_ error: Error, _ context: String) {
        lock.lock()
        defer { lock.unlock() }
        if firstError == nil { firstError = "\(context): \(error)" }
    }

    /// Takes a durable, verified segment of camera `camera`.
    func add(segment path: String, index: Int, camera: Int, firstPresentationNanoseconds: Int64, durationNanoseconds: Int64) {
        remuxQueue.async { [self] in
            do { try remuxes[camera].add(segment: path, index: index, first: firstPresentationNanoseconds) } catch { record(error, "remuxing \(path)") }
        }
        composer.add(segment: .init(stream: camera, index: index, firstPresentationNanoseconds: firstPresentationNanoseconds,
                                    durationNanoseconds: durationNanoseconds), path: path)
    }

    /// The take stops at `presentationNanoseconds`: the composite's last segment goes at
    /// the fastest preset.
    func stopping(atPresentation presentationNanoseconds: Int64) { composer.stopping(atPresentation: presentationNanoseconds) }

    /// The camera delivered everything, or is given up on: the composite no longer waits.
    func stopAwaiting(camera: Int) { composer.stopAwaiting(stream: camera) }

    func changeLayout(at presentationNanoseconds: Int64, to spec: LayoutSpec) {
        composer.changeLayout(at: presentationNanoseconds, to: spec)
    }

    /// The director has the programme again from `presentationNanoseconds`.
    func handBack(at presentationNanoseconds: Int64) { composer.handBack(at: presentationNanoseconds) }

    /// What the director hears and does (nil without one).
    var director: LiveComposer.DirectorState? { composer.director }

    /// Go live / End live: the recording is not touched.
    func setLive(_ on: Bool) { composer.liveOut?.setLive(on) }

    /// The programme's live streams now (empty: none).
    var liveOut: [LiveStreamStatus] { composer.liveOut?.statuses ?? [] }

    /// The cameras' phase so far, as the combined picture pairs them (nil before a frame).
    var framePhase: FramePhase? { composer.framePhase }

    func changeFilter(at presentationNanoseconds: Int64, to setting: FilterSetting) {
        composer.changeFilter(at: presentationNanoseconds, to: setting)
    }

    func changeMix(at presentationNanoseconds: Int64, to mix: AudioMixSpec) {
        composer.changeMix(at: presentationNanoseconds, to: mix)
    }

    /// Composite segments done and taken, for the finishing progress bar.
    func progress() -> (done: Int, total: Int) {
        let p = composer.progress()
        return (p.composed, p.taken)
    }

    func finish(t0Shared: Int64, durationNanoseconds: Int64, cameras: [CameraStatistics],
                deviceIDs: [String], warnings sessionWarnings: [String],
                sinceStop: Int64? = nil) async throws -> TakeResult {
        let finishing = ContinuousClock.now
        // Every segment is in: what follows is finishing, not recording.
        if sinceStop != nil { cpu = cpuMeter.read(cameras: cameraNames.count) }
        let (remuxWarnings, soundFiles, recorded, startTimecodes): ([String], [String?], [Int], [SMPTETimecode?]) = await withCheckedContinuation { done in
            remuxQueue.async { [self] in
                var warnings: [String] = []
                var recorded: [Int] = []
                for (i, remux) in remuxes.enumerated() {
                    if !remux.missingSegments.isEmpty {
                        warnings.append("\(cameraNames[i]): segments after a gap never arrived: \(remux.missingSegments)")
                    }
                    // A camera that recorded nothing (its source or encoder failed) has no
                    // file; the session is the others' (the composite shows its slot empty).
                    guard remux.hasSegments else {
                        warnings.append("\(cameraNames[i]) recorded nothing: the session has no file of it")
                        continue
                    }
                    recorded.append(i)
                    do { try remux.finish() } catch { record(error, "finishing \(remux.outputPath)") }
                }
                done.resume(returning: (warnings, remuxes.map { $0.hasSound ? $0.soundPath : nil }, recorded,
                                        remuxes.map(\.startTimecode)))
            }
        }
        let composite = try await composer.finish(endPresentationNanoseconds: durationNanoseconds)
        if let error = lock.withLock({ firstError }) { throw CoordinatorError(error) }
        guard !recorded.isEmpty else {
            throw CoordinatorError("no camera recorded anything: " + (sessionWarnings + remuxWarnings).joined(separator: "; "))
        }
        let phase = FramePhaseRecord(composite.statistics.phase, names: cameras.map(\.name), genlocked: plan.genlock)
        var manifest = SessionManifest(
            sessionID: sessionID,
            startWallTime: ISO8601DateFormatter().string(from: wallStart),
            t0SharedNanoseconds: t0Shared,
            stopSharedNanoseconds: t0Shared + durationNanoseconds,
            durationSeconds: Double(durationNanoseconds) / 1e9,
            settings: .init(width: plan.width, height: plan.height, fps: "\(plan.rate)", encoder: plan.encoder,
                            preset: plan.preset, crf: plan.crf, segmentMilliseconds: plan.segmentMilliseconds,
                            genlock: plan.genlock),
            cameras: recorded.map { i in
                .init(file: (cameraFiles[i] as NSString).lastPathComponent, deviceID: deviceIDs[i], statistics: cameras[i],
                      soundFile: soundFiles[i].map { ($0 as NSString).lastPathComponent },
                      timecode: startTimecodes[i]?.description)
            },
            composite: composite.manifestEntry(file: (composer.outputPath as NSString).lastPathComponent,
                                               layout: plan.layout.description, timeline: composer.timeline,
                                               filters: composer.filters, mixes: composer.mixes,
                                               encoding: composer.encoding, direction: composer.direction,
                                               director: composer.directorRecord(nodeNames: cameras.map(\.name),
                                                                                 endNanoseconds: durationNanoseconds)),
            warnings: sessionWarnings + remuxWarnings + composite.warnings + (phase.warning.map { [$0] } ?? []),
            timecode: timecode?.description,
            contactSheet: FileManager.default.fileExists(atPath: sessionDirectory + "/" + ContactSheetRecorder.sheetName)
                ? .init(file: ContactSheetRecorder.sheetName, thumbnail: ContactSheetRecorder.thumbnailName,
                        samplingMilliseconds: Double(composite.sheetSamplingNanoseconds) / 1e6,
                        writingMilliseconds: Double(composite.sheetWritingNanoseconds) / 1e6,
                        finalisingMilliseconds: Double(ContactSheetRecorder.nanoseconds(since: finishing)) / 1e6,
                        sinceStopMilliseconds: sinceStop.map { Double(MonotonicTime.now() - $0) / 1e6 })
                : nil,
            framePhase: phase.pairs.isEmpty && phase.cameras.isEmpty ? nil : phase,
            coordinatorCPU: cpu)
        manifest.liveOut = composer.liveOut.map { live in
            // Each destination's history; one never started (no frame composed) is still named.
            live.records.isEmpty ? live.destinations.map { StreamRecord(destination: $0.shown) } : live.records
        }
        let manifestPath = sessionDirectory + "/manifest.json"
        try manifest.write(sessionDirectory: sessionDirectory)
        finished = (manifest, durationNanoseconds)
        if let sheet = manifest.contactSheet {
            let whole = sheet.sinceStopMilliseconds ?? sheet.finalisingMilliseconds
            let share: Double = sheet.writingMilliseconds / max(whole, 1e-3) * 100
            let figures = String(format: "%.1f ms at stop (%.2f %% of %.0f ms finalising), %.1f ms scaling pictures while recording",
                                 sheet.writingMilliseconds, share, whole, sheet.samplingMilliseconds)
            logger.info("contact sheet: \(figures)")
        }
        // The editors' timelines, cheap beside the manifest: a failure costs only them.
        for format in [ExportFormat.fcpxml, .otio] {
            do { try SessionExporter.export(SessionFolder(path: sessionDirectory), format: format) } catch {
                logger.warning("no \(format.rawValue) timeline: \(error)")
            }
        }
        return TakeResult(sessionDirectory: sessionDirectory, perCameraFiles: recorded.map { cameraFiles[$0] },
                             soundFiles: soundFiles.compactMap { $0 },
                             combinedFile: composer.outputPath, manifestFile: manifestPath)
    }

    /// What the files themselves say of sync, written into the manifest once they are
    /// final (reading and decoding them takes a moment the files should not wait for):
    /// the nodes' offset from their sound, and the clocks' true error from the frame
    /// codes of test-pattern sources, with a warning where cameras were further apart than
    /// a tenth of a frame.
    func addSyncReports() throws -> SyncReports {
        guard let (original, duration) = finished else { return SyncReports() }
        var manifest = original
        var reports = SyncReports()
        let period = plan.rate.periodNanoseconds
        reports.sound = AudioSyncCheck.measure(files: cameraFiles, names: cameraNames, durationNanoseconds: duration)
        let files = manifest.cameras.map { sessionDirectory + "/" + $0.file }
        reports.clockTruth = ClockTruthCheck.measure(files: files, names: manifest.cameras.map(\.statistics.name),
                                                     sources: manifest.cameras.map(\.statistics.source),
                                                     t0Shared: manifest.t0SharedNanoseconds, durationNanoseconds: duration,
                                                     periodNanoseconds: period)
        reports.warnings = reports.clockTruth.map { ClockTruthCheck.warnings($0, periodNanoseconds: period) } ?? []
        reports.warnings += AudioSyncCheck.warnings(reports.sound, periodNanoseconds: period)
        guard !reports.sound.isEmpty || reports.clockTruth != nil else { return reports }
        if !reports.sound.isEmpty { manifest.audioSync = reports.sound }
        manifest.clockTruth = reports.clockTruth
        manifest.warnings += reports.warnings
        try manifest.write(sessionDirectory: sessionDirectory)
        return reports
    }
}

struct SyncReports {
    var sound: [AudioSyncCheck.Entry] = []
    var clockTruth: ClockTruthCheck.Report?
    var warnings: [String] = []
}
