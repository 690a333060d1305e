import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation

/// Re-renders a finished session's combined file from its per-camera files through the
/// same renderer as live composition (pairer, compositor, layout timeline, filter,
/// encoder), so the cameras line up exactly as they did live.
///
/// Each camera is decoded on its own thread; this thread takes the pictures in
/// presentation order across the cameras (the earliest head first), so the pairer
/// releases every tick as soon as all cameras have passed it and holds at most a frame
/// or two per camera. The file is written beside the combined one and renamed over it
/// only once complete; then the manifest's composite entry is rewritten.
public enum Recomposer {
    public static func run(_ session: SessionFolder, request: RecomposeRequest,
                           cancellation: RecomposeCancellation = RecomposeCancellation(),
                           clock: any TimeSource = SystemClock(),
                           progress: (RecomposeProgress) -> Void = { _ in }) throws -> RecomposeResult {
        let lock = try SessionLock(sessionDirectory: session.path, purpose: "recomposing")
        defer { withExtendedLifetime(lock) {} }
        guard var manifest = session.manifest else {
            if let problem = session.manifestProblem { throw CoordinatorError(problem) }
            throw CoordinatorError("session \(session.id) is unfinished (no manifest.json): run "
                + "`dualcam-coordinator resume \(session.id)` first, then recompose it")
        }
        let missing = manifest.cameras.map(\.file).filter { !FileManager.default.fileExists(atPath: session.path + "/" + $0) }
        guard missing.isEmpty else {
            throw CoordinatorError("session \(session.id) lacks \(missing.joined(separator: ", ")): nothing to recompose from")
        }
        guard let rate = FrameRate(parsing: manifest.settings.fps) else {
            throw CoordinatorError("the manifest's frame rate '\(manifest.settings.fps)' is not one DualCam reads")
        }
        let timeline: LayoutTimeline
        if request.director != nil {
            // The director's wide shot is the layout asked for, else the one the take began in.
            let base = try request.layout ?? manifest.compositeTimeline().initial
            timeline = LayoutTimeline(initial: LayoutSpec(kind: base.kind, fit: base.fit, anchor: base.anchor, pip: base.pip))
        } else {
            timeline = try request.layout.map { LayoutTimeline(initial: $0) } ?? manifest.compositeTimeline()
        }
        let filters = try request.filter.map { ChangeTimeline(initial: FilterSetting($0)) } ?? manifest.compositeFilters()
        let cameraNames = manifest.cameras.map { SessionNaming.cameraName(ofFile: $0.file) }
        // Another recorder's sound is heard only where the mix asked names it (or says
        // external): `all` means every camera, as it did when the take was recorded.
        let imports = manifest.imports ?? []
        let asked = try request.mix?.expandingExternal(importNames: imports.map(\.name))
        try asked?.check(cameraNames: cameraNames, importNames: imports.map(\.name))
        let heard = imports.filter { asked?.levels?[$0.name.lowercased()] != nil }
        let mixes = try asked.map { ChangeTimeline(initial: $0) } ?? manifest.compositeMixes()
        let encoding = Self.encoding(manifest, request: request, rate: rate)
        let width = manifest.settings.width, height = manifest.settings.height
        let durationNanoseconds = Int64((manifest.durationSeconds * 1e9).rounded())

        let target = request.replace ? manifest.composite.file
            : renderName(manifest, suffix: request.director == nil ? timeline.initial.kind.rawValue : "director")
        let combined = session.path + "/" + target
        let temporary = session.path + "/.recompose-\(getpid())-" + target
        removeLeftovers(in: session.path)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let creation = ISO8601DateFormatter().date(from: manifest.startWallTime).map { Int64($0.timeIntervalSince1970) }
            ?? Int64(clock.wallSeconds)

        let started = clock.now
        let renderer = try CompositeRenderer(
            outputPath: temporary, streamCount: manifest.cameras.count, width: width, height: height, rate: rate,
            // Frames come in presentation order, so a tick is only released early across a
            // camera's gap; two periods is past any frame of that tick's cell.
            latencyWindowNanoseconds: 2 * rate.periodNanoseconds,
            timeline: timeline, filters: filters,
            encoder: VideoEncoderSettings(encoder: encoding.encoder, width: width, height: height, rate: rate,
                                          preset: encoding.preset, tune: encoding.tune, crf: encoding.crf,
                                          bitrate: encoding.bitrate, gopFrames: encoding.gopFrames, threads: 0),
            tags: SessionTimecode.tags(camera: "Combined", role: "combined", sessionID: manifest.sessionID, creation: creation,
                                       timecode: SessionTimecode.parse(manifest.timecode, fps: manifest.settings.fps)),
            mixes: mixes, cameraNames: cameraNames, soundNames: cameraNames + heard.map(\.name), director: request.director,
            loudnessTarget: request.loudnessTarget)
        let feeds = manifest.cameras.map { CameraFrameFeed(path: session.path + "/" + $0.file) }
        let sound: [any AudioFeed] = try manifest.cameras.map { try CameraAudioFeed(path: session.path + "/" + $0.file) }
            + heard.map { try ImportSoundFeed(path: session.path + "/" + $0.file) }
        for format in sound.compactMap(\.format) {
            renderer.openAudio(sampleRate: format.sampleRate, channels: format.channels)
        }
        defer { feeds.forEach { $0.cancel() } }

        let expected = Int(rate.firstFrame(atOrAfter: durationNanoseconds))
        var lastReport = started
        func report(force: Bool = false) {
            let now = clock.now
            guard force || now - lastReport >= 500_000_000 else { return }
            lastReport = now
            let elapsed = Double(now - started) / 1e9
            progress(RecomposeProgress(framesComposed: renderer.framesComposed, framesExpected: expected,
                                       framesPerSecond: elapsed > 0 ? Double(renderer.framesComposed) / elapsed : 0))
        }

        var heads = try feeds.map { try $0.next() }
        while true {
            if cancellation.isCancelled { throw CoordinatorError("recompose interrupted; \(combined) is unchanged") }
            // The earliest picture among the cameras' next ones; the lower camera on a tie.
            var earliest: Int?
            for (i, head) in heads.enumerated() {
                guard let head else { continue }
                if earliest.map({ head.ptsNanoseconds < heads[$0]!.ptsNanoseconds }) ?? true { earliest = i }
            }
            guard let i = earliest, let frame = heads[i] else { break }
            renderer.push(stream: i, frame: frame)
            // Sound a second ahead of the pictures: the mix follows them half a second behind.
            for (j, feed) in sound.enumerated() {
                for chunk in try feed.chunks(until: frame.ptsNanoseconds + 1_000_000_000) { renderer.pushAudio(stream: j, chunk) }
            }
            heads[i] = try feeds[i].next()
            try renderer.composeReady()
            report()
        }
        for (j, feed) in sound.enumerated() {
            for chunk in try feed.chunks(until: .max) { renderer.pushAudio(stream: j, chunk) }
        }
        let statistics = try renderer.finish(endPresentationNanoseconds: durationNanoseconds)
        report(force: true)
        if cancellation.isCancelled { throw CoordinatorError("recompose interrupted; \(combined) is unchanged") }

        guard rename(temporary, combined) == 0 else {
            throw CoordinatorError("could not write \(combined): \(String(cString: strerror(errno))); the session is unchanged")
        }
        let layoutText = timeline.initial.description
        let entry = SessionManifest.Composite(
            file: target, layout: layoutText, filter: filters.initial.description,
            timeline: SessionManifest.layoutChanges(renderer.timeline, direction: renderer.direction),
            filterTimeline: filters.changes.isEmpty ? nil : filters.changes.map {
                .init(presentationNanoseconds: $0.presentationNanoseconds, filter: $0.value.description)
            },
            ticks: statistics.ticks, pairs: statistics.pairs, repeats: statistics.repeats, noSignal: statistics.noSignal,
            droppedFrames: statistics.droppedFrames, frameError: .init(statistics.frameError),
            pairSpread: .init(statistics.pairSpread), mix: mixes.initial.description,
            mixTimeline: mixes.changes.isEmpty ? nil : mixes.changes.map {
                .init(presentationNanoseconds: $0.presentationNanoseconds, mix: $0.value.description)
            },
            encoding: encoding,
            recomposedAt: ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: clock.wallSeconds)),
            director: renderer.direction?.record(nodeNames: manifest.cameras.map(\.statistics.name), timeline: renderer.timeline,
                                                 endNanoseconds: durationNanoseconds),
            loudness: try renderer.loudnessRecord())
        if request.replace {
            manifest.composite = entry
        } else {
            manifest.renders = (manifest.renders ?? []) + [entry]
        }
        try manifest.write(sessionDirectory: session.path)
        return RecomposeResult(combinedFile: combined, frames: renderer.framesComposed,
                               wallSeconds: clock.seconds(since: started),
                               layout: layoutText, filter: filters.initial.description,
                               pairs: statistics.pairs, repeats: statistics.repeats, noSignal: statistics.noSignal)
    }

    /// A render's own file beside the combined one, named for its layout:
    /// `DualCam_Combined_<stamp>_split-vertical.mp4`, then `…_split-vertical_2.mp4`.
    static func renderName(_ manifest: SessionManifest, suffix: String) -> String {
        let base = (manifest.composite.file as NSString).deletingPathExtension + "_" + suffix
        let taken = Set([manifest.composite.file] + (manifest.renders ?? []).map(\.file))
        var n = 1
        while true {
            let name = base + (n == 1 ? "" : "_\(n)") + ".mp4"
            if !taken.contains(name) { return name }
            n += 1
        }
    }

    /// A re-render of a session recorded with `--preset auto`, unless the request names one.
    static let offlinePreset = "veryfast"

    /// The encoder settings: what the request names, else what the combined file last
    /// had (a previous recompose's, or the live session's).
    static func encoding(_ manifest: SessionManifest, request: RecomposeRequest, rate: FrameRate) -> SessionManifest.Encoding {
        let s = manifest.settings
        // Live composites cut a keyframe per segment; keep that cadence.
        let segmentFrames = Int(Int64(s.segmentMilliseconds) * rate.numerator / (1000 * rate.denominator))
        // The live composite is encoded fast to keep up with real time; a re-render defaults
        // to the session's own preset, or to what the last recompose used.
        let previous = manifest.renders?.last?.encoding ?? (manifest.composite.recomposedAt == nil ? nil : manifest.composite.encoding)
        // `auto` was each node's own choice while it recorded, not an x264 preset: an
        // offline render, with no clock to keep, takes the agents' old default.
        let sessionPreset = s.preset == VideoEncoderSettings.automaticPreset ? offlinePreset : s.preset
        var e = previous
            ?? .init(encoder: s.encoder, preset: sessionPreset, tune: nil, crf: s.crf, bitrate: nil, gopFrames: max(segmentFrames, 1))
        if let encoder = request.encoder { e.encoder = encoder }
        if let preset = request.preset { e.preset = preset }
        if let bitrate = request.bitrate {
            e.bitrate = bitrate
            e.crf = nil
        } else if let crf = request.crf {
            e.crf = crf
            e.bitrate = nil
        }
        e.tune = request.tune
        return e
    }

    /// Temporary files of a recompose that was killed before it could clean up.
    private static func removeLeftovers(in directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(".recompose-") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}
