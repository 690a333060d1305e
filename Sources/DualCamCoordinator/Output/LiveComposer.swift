import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import Logging

/// The combined file, composed while the session records: each arriving segment is
/// decoded, its frames go into the core's frame pairer, and every output tick the pairer
/// releases is composited and encoded at once. At stop only the tail remains, so the
/// file is final seconds after the last segment, whatever the session's length.
final class LiveComposer: @unchecked Sendable {
    // Invariant: every stored var below is touched only on `queue`, except `counts`,
    // `directorState` and `operatorHasIt`, which are touched only under `countsLock` (`stop`
    // is atomic, and a let).
    private let queue = DispatchQueue(label: "dualcam.compose")
    let outputPath: String
    private let decoders: [CameraSegmentDecoder]
    private let renderer: CompositeRenderer
    private var scheduler: SegmentScheduler
    private var paths: [String: String] = [:]
    private var error: String?
    /// Read by the progress bar under `countsLock`, without waiting for the queue.
    private let countsLock = NSLock()
    private var counts = (composed: 0, taken: 0)
    /// How the combined file is encoded live, for the manifest (`show` tells it); with
    /// `auto`, completed at the first frame and at each switch.
    private var liveEncoding: SessionManifest.Encoding
    /// The measurement `auto` waits for before the first frame (nil: a preset was asked
    /// for, or a resumed take, which keeps the fixed choice).
    private var measurement: CompositeProbe.Pending?
    private let rate: FrameRate

    /// The programme's live streams (nil: none asked for).
    let liveOut: LiveOut?

    init(outputPath: String, streamCount: Int, plan: TakePlan, tags: MP4Tags, cameraNames: [String],
         measurement: CompositeProbe.Pending? = nil, logger: Logger = Logger(label: "dualcam.compose")) throws {
        directing = plan.director != nil
        self.outputPath = outputPath
        decoders = (0..<streamCount).map { _ in CameraSegmentDecoder() }
        scheduler = SegmentScheduler(streamCount: streamCount)
        rate = plan.rate
        let preset = CompositePreset.choose(plan: plan, cameras: streamCount).preset
        self.measurement = CompositePreset.isAutomatic(plan) ? measurement : nil
        liveEncoding = .init(encoder: plan.encoder, preset: preset, tune: "zerolatency",
                             crf: plan.bitrate == nil ? plan.crf : nil, bitrate: plan.bitrate, gopFrames: plan.compositeGOPFrames)
        liveOut = plan.streams.isEmpty ? nil
            : LiveOut(destinations: plan.streams, maxBitrate: plan.effectiveStreamBitrate, live: plan.goesLive, logger: logger)
        var encoder = VideoEncoderSettings(encoder: plan.encoder, width: plan.width, height: plan.height, rate: plan.rate,
                                           preset: preset, tune: "zerolatency", crf: plan.bitrate == nil ? plan.crf : nil,
                                           bitrate: plan.bitrate, gopFrames: plan.compositeGOPFrames, threads: 0)
        encoder.threadNiceness = Self.encoderNiceness
        // Streaming at the take's size: a ceiling platforms accept, on the one encode the
        // file shares. At another size the streams have an encode of their own.
        if liveOut != nil && !plan.streamsEncodedApart { encoder.maxBitrate = plan.effectiveStreamBitrate }
        // A tick waits for every camera up to two segments plus upload slack.
        renderer = try CompositeRenderer(
            outputPath: outputPath, streamCount: streamCount, width: plan.width, height: plan.height, rate: plan.rate,
            latencyWindowNanoseconds: Int64(plan.segmentMilliseconds) * 2_000_000 + 2_000_000_000,
            timeline: LayoutTimeline(initial: plan.layout), filters: ChangeTimeline(initial: FilterSetting(plan.filter)),
            encoder: encoder,
            tags: tags, mixes: ChangeTimeline(initial: plan.mix), cameraNames: cameraNames, director: plan.director,
            loudnessTarget: plan.loudnessTarget)
        renderer.contactSheet = ContactSheetRecorder(width: plan.width, height: plan.height)
        renderer.liveOut = liveOut
        if let liveOut, plan.streamsEncodedApart {
            let settings = Self.streamSettings(plan, filePreset: preset)
            renderer.streamEncode = try StreamEncode(settings: settings) { liveOut.offer($0, audio: false) }
            liveEncoding.streams = .init(width: settings.width, height: settings.height, preset: settings.preset, automatic: false)
        }
    }

    /// The streams' own encode: their size, constant-bitrate-like at their ceiling (a VBV
    /// of two seconds of it), key frames every 2 s, and the file's preset or veryfast,
    /// whichever is faster, since it runs beside the file's encode: until the measurement
    /// (`CompositeProbe.measureStreams`) chooses, and where it failed.
    static func streamSettings(_ plan: TakePlan, filePreset: String) -> VideoEncoderSettings {
        let ladder = PresetChoice.ladder
        let veryfast = ladder.firstIndex(of: "veryfast") ?? 0
        // `auto` is measured at the first frame: veryfast until then and after.
        let preset = ladder[min(ladder.firstIndex(of: filePreset) ?? veryfast, veryfast)]
        var settings = VideoEncoderSettings(encoder: plan.encoder, width: plan.streamPicture.width, height: plan.streamPicture.height,
                                            rate: plan.rate, preset: preset, tune: "zerolatency", crf: nil,
                                            bitrate: plan.effectiveStreamBitrate, gopFrames: plan.compositeGOPFrames, threads: 1)
        settings.maxBitrate = plan.effectiveStreamBitrate
        return settings
    }

    /// How much lower than the rig the composite's encoder threads run (nice): below the
    /// agents' previews (`PreviewStreamer.niceness`, 5) when they share the CPU (the demo,
    /// a node that is also the laptop). The file's encode may fall behind and catch up,
    /// a picture the operator is framing by may not; nor may a camera's recording.
    static let encoderNiceness: Int32 = 15

    /// A take abandoned before its files were finished ends its streams too.
    deinit { liveOut?.stop() }

    /// Takes a durable segment; it is composed once every camera still awaited has
    /// delivered up to its start (`SegmentScheduler`).
    func add(segment: SegmentScheduler.Segment, path: String) {
        queue.async { [self] in
            paths["\(segment.stream)/\(segment.index)"] = path
            countsLock.withLock { counts.taken += 1 }
            scheduler.arrived(segment)
            compose(scheduler.release())
        }
    }

    /// The take stops at `presentationNanoseconds` (`CompositeSteering`: its last segment
    /// goes at the fastest preset). Read by the compose queue mid-batch, without waiting.
    func stopping(atPresentation presentationNanoseconds: Int64) {
        stop.set(presentationNanoseconds)
    }

    /// Shared with the steering, which is made later, on the queue.
    private let stop = StopInstant()

    /// The camera has delivered everything, or the session no longer waits for it.
    func stopAwaiting(stream: Int) {
        queue.async { [self] in
            scheduler.stopAwaiting(stream: stream)
            compose(scheduler.release())
            // Only now: a camera that delivered everything may still have segments in the
            // batch just released, and the director must hear their sound before it stops
            // waiting for that camera, or the take's last seconds are cut on what arrived
            // first (a recompose, reading the files, hears it all).
            renderer.soundEnded(stream: stream)
            guard error == nil else { return }
            do {
                try renderer.composeReady()
            } catch {
                self.error = "composing after camera \(stream + 1) ended: \(error)"
            }
        }
    }

    /// Segments composed and segments taken so far, for progress bars.
    func progress() -> (composed: Int, taken: Int) {
        countsLock.withLock { counts }
    }

    /// The combined file's encoding for the manifest.
    var encoding: SessionManifest.Encoding {
        queue.sync {
            var e = liveEncoding
            if e.automatic == true, let steering = renderer.steering {
                e.switches = steering.switches
            }
            return e
        }
    }

    /// Before the first frame: the measured preset, and the governor that steps from it.
    /// Waiting here costs nothing in a take: the first segments arrive seconds after T0,
    /// and the measurement began with the Prepare.
    private func adoptMeasurement() {
        guard let pending = measurement else { return }
        measurement = nil
        switch pending.wait() {
        case .success(let measured):
            renderer.usePreset(measured.preset)
            renderer.steering = CompositeSteering(measurement: measured, rate: rate, gopFrames: liveEncoding.gopFrames, stop: stop)
            liveEncoding.preset = measured.preset
            liveEncoding.automatic = true
            liveEncoding.speed = (measured.outcome.speed * 100).rounded() / 100
            liveEncoding.measured = measured.measured
            liveEncoding.switches = []
            measurementKey = pending.key
            adoptStreamPreset(measured)
        case .failure:
            break  // the fixed choice stays; the take's notice said why
        }
    }

    /// The streams' encode opened again at the measured preset, before its first picture
    /// (the streams' headers are sent with the file's first frame, after this). If it cannot
    /// be opened, the first one stays.
    private func adoptStreamPreset(_ measured: CompositeMeasurement) {
        guard let preset = measured.streamPreset, let liveOut, let old = renderer.streamEncode else { return }
        var settings = old.settings
        settings.preset = preset
        if preset != old.settings.preset, let opened = try? StreamEncode(settings: settings, send: { liveOut.offer($0, audio: false) }) {
            old.finish()
            renderer.streamEncode = opened
        }
        let current = renderer.streamEncode?.settings.preset ?? old.settings.preset
        liveEncoding.streams = .init(width: settings.width, height: settings.height, preset: current, automatic: current == preset,
                                     speed: measured.streamOutcome.map { ($0.speed * 100).rounded() / 100 },
                                     measured: measured.streamMeasured)
    }

    /// The measurement's cache key, forgotten when the take had to step faster.
    private var measurementKey: String?

    private func compose(_ segments: [SegmentScheduler.Segment]) {
        adoptMeasurement()
        // Every camera's segments of this batch decoded at once, each camera on a core
        // of its own where there are cores; then composed in order, here.
        var work: [(camera: Int, path: String)] = []
        let jobs: [Int?] = segments.map { segment in
            guard error == nil, let path = paths.removeValue(forKey: "\(segment.stream)/\(segment.index)") else { return nil }
            work.append((segment.stream, path))
            return work.count - 1
        }
        let decodeStart = MonotonicTime.now()
        let decoded = CameraSegmentDecoder.decodeConcurrently(work, decoders: decoders)
        // Each composite frame's share of the batch's decoding: the batch holds about a
        // segment of every camera, one composite frame per frame of the busiest camera.
        let framesPerCamera = decoded.map { (try? $0.get().frames.count) ?? 0 }.max() ?? 0
        if framesPerCamera > 0 { renderer.decodeNanosecondsPerFrame = (MonotonicTime.now() - decodeStart) / Int64(framesPerCamera) }
        for (segment, job) in zip(segments, jobs) {
            countsLock.withLock { counts.composed += 1 }
            guard error == nil, let job else { continue }
            do {
                let out = try decoded[job].get()
                if let sound = out.soundOpened { renderer.openAudio(sampleRate: sound.sampleRate, channels: sound.channels) }
                for frame in out.frames { renderer.push(stream: segment.stream, frame: frame) }
                for chunk in out.sound { renderer.pushAudio(stream: segment.stream, chunk) }
                try renderer.composeReady()
            } catch {
                self.error = "composing segment \(segment.index) of camera \(segment.stream + 1): \(error)"
            }
        }
        let phase = renderer.framePhase
        countsLock.withLock { livePhase = phase }
        if let direction = renderer.direction {
            // `following` is filled in when read, from `operatorHasIt`: who has the programme
            // is the operator's word from the moment it is said, while the composite
            // reaches that instant a segment or two later.
            let state = DirectorState(following: true, speaking: direction.speaking, shot: direction.shot, cuts: direction.cuts.count)
            countsLock.withLock { directorState = state }
        }
    }

    /// Applies from the output frame at or after `presentationNanoseconds`; with the
    /// director on, the operator has the programme from there until `handBack`.
    func changeLayout(at presentationNanoseconds: Int64, to spec: LayoutSpec) {
        queue.async { [self] in renderer.operatorLayout(at: presentationNanoseconds, to: spec) }
        if directing { countsLock.withLock { operatorHasIt = true } }
    }

    /// The director has the programme again from the output frame at `presentationNanoseconds`.
    func handBack(at presentationNanoseconds: Int64) {
        queue.async { [self] in renderer.handBack(at: presentationNanoseconds) }
        if directing { countsLock.withLock { operatorHasIt = false } }
    }

    let directing: Bool

    /// What the director hears and does, as of the last batch composed (nil without one).
    struct DirectorState: Sendable, Equatable {
        var following: Bool
        /// Per camera, in a turn.
        var speaking: [Bool]
        var shot: Shot?
        var cuts: Int
    }

    private var directorState: DirectorState?
    /// Under `countsLock`: the operator took the programme over and has not handed it back.
    private var operatorHasIt = false
    /// The pairer's phase figures after the last batch, for the status (under `countsLock`).
    private var livePhase: FramePhase?

    var framePhase: FramePhase? { countsLock.withLock { livePhase } }

    var director: DirectorState? {
        countsLock.withLock {
            guard directing else { return nil }
            var state = directorState ?? DirectorState(following: true, speaking: [], shot: nil, cuts: 0)
            state.following = !operatorHasIt
            return state
        }
    }

    /// The director's record for the manifest (nil without one).
    func directorRecord(nodeNames: [String], endNanoseconds: Int64) -> SessionManifest.DirectorRecord? {
        queue.sync { renderer.direction?.record(nodeNames: nodeNames, timeline: renderer.timeline, endNanoseconds: endNanoseconds) }
    }

    var direction: CompositeDirection? { queue.sync { renderer.direction } }

    var timeline: LayoutTimeline { queue.sync { renderer.timeline } }

    /// Applies from the output frame at or after `presentationNanoseconds`.
    func changeFilter(at presentationNanoseconds: Int64, to setting: FilterSetting) {
        queue.async { [self] in renderer.filters.change(at: presentationNanoseconds, to: setting) }
    }

    var filters: ChangeTimeline<FilterSetting> { queue.sync { renderer.filters } }

    /// The sound mix from `presentationNanoseconds` (the sample at that instant).
    func changeMix(at presentationNanoseconds: Int64, to mix: AudioMixSpec) {
        queue.async { [self] in renderer.mixes.change(at: presentationNanoseconds, to: mix) }
    }

    var mixes: ChangeTimeline<AudioMixSpec> { queue.sync { renderer.mixes } }

    struct Outcome {
        var statistics: PairingStatistics
        var warnings: [String]
        /// What the contact sheet cost: scaling pictures while recording, and tiling and
        /// encoding it at stop.
        var sheetSamplingNanoseconds: Int64 = 0
        var sheetWritingNanoseconds: Int64 = 0
        var loudness: SessionManifest.Loudness?

        func manifestEntry(file: String, layout: String, timeline: LayoutTimeline, filters: ChangeTimeline<FilterSetting>,
                           mixes: ChangeTimeline<AudioMixSpec>, encoding: SessionManifest.Encoding,
                           direction: CompositeDirection?, director: SessionManifest.DirectorRecord?) -> SessionManifest.Composite {
            .init(file: file, layout: layout, filter: filters.initial.description,
                  timeline: SessionManifest.layoutChanges(timeline, direction: direction),
                  filterTimeline: filters.changes.isEmpty ? nil : filters.changes.map {
                      .init(presentationNanoseconds: $0.presentationNanoseconds, filter: $0.value.description)
                  },
                  ticks: statistics.ticks, pairs: statistics.pairs, repeats: statistics.repeats,
                  noSignal: statistics.noSignal, droppedFrames: statistics.droppedFrames,
                  frameError: .init(statistics.frameError), pairSpread: .init(statistics.pairSpread),
                  mix: mixes.initial.description,
                  mixTimeline: mixes.changes.isEmpty ? nil : mixes.changes.map {
                      .init(presentationNanoseconds: $0.presentationNanoseconds, mix: $0.value.description)
                  },
                  encoding: encoding, director: director, loudness: loudness)
        }
    }

    /// Composes what is left up to `endPresentationNanoseconds` and closes the file.
    func finish(endPresentationNanoseconds: Int64) async throws -> Outcome {
        try await withCheckedThrowingContinuation { done in
            queue.async { [self] in
                do {
                    compose(scheduler.releaseAll())
                    if let error { throw CoordinatorError(error) }
                    // A take that had to step faster measures again next time.
                    if let key = measurementKey, renderer.steering?.steppedFaster == true { CompositeProbe.forget(key) }
                    for i in decoders.indices {
                        for frame in try decoders[i].flush() { renderer.push(stream: i, frame: frame) }
                    }
                    let statistics = try renderer.finish(endPresentationNanoseconds: endPresentationNanoseconds)
                    liveOut?.stop()
                    var outcome = Outcome(statistics: statistics, warnings: [])
                    if let encode = renderer.streamEncode, encode.droppedPictures > 0 || encode.error != nil {
                        // The streams' pictures only: the file has every one.
                        outcome.warnings.append("the streams' own encode (\(encode.settings.width)x\(encode.settings.height)) "
                            + "dropped \(encode.droppedPictures) of \(encode.droppedPictures + encode.encodedPictures) pictures, "
                            + (encode.error.map { "stopped: \($0)" } ?? "the machine being short of CPU")
                            + "; the combined file has every one")
                    }
                    outcome.loudness = try renderer.loudnessRecord()
                    if let sheet = renderer.contactSheet {
                        // A sheet that cannot be written costs the session nothing but the sheet.
                        do {
                            outcome.sheetWritingNanoseconds = try sheet.write(into: (outputPath as NSString).deletingLastPathComponent)
                        } catch {
                            outcome.warnings.append("no contact sheet: \(error)")
                        }
                        outcome.sheetSamplingNanoseconds = sheet.samplingNanoseconds
                    }
                    done.resume(returning: outcome)
                } catch {
                    liveOut?.stop()
                    done.resume(throwing: error)
                }
            }
        }
    }
}
