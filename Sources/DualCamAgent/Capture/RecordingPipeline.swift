import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import NIOConcurrencyHelpers

/// What a recording produced, reported once it has ended.
public struct RecordingSummary: Sendable {
    public var segments: Int
    public var framesCaptured: Int
    public var framesDropped: Int
    public var error: String?
    public var sourceDescription: String = ""
    /// Things the operator should know that did not stop the recording.
    public var notes: [String] = []
    /// How long after the shared T0 the first frame was encoded and stored: what a take's
    /// start cost (a camera or encoder still opening shows here).
    public var firstFrameStoredAfterT0Nanoseconds: Int64?
    /// `--preset auto`: every step to another preset during the take, in order.
    public var presetSwitches: [PresetSwitchRecord] = []
}

/// The encoder stepped to `preset` where segment `segmentIndex` begins.
public struct PresetSwitchRecord: Sendable, Equatable {
    public var segmentIndex: Int
    public var atPtsNanoseconds: Int64
    public var preset: String
    public var reason: String
}

/// Capture → encode → segment, on threads of their own: encoding is blocking, CPU-bound C
/// work that must not occupy Swift's cooperative pool, and a camera is paced by its own
/// clock, not by tasks. Every finished (fsynced) segment is handed to `onSegment`.
final class RecordingPipeline: Sendable {
    private let stopShared = NIOLockedValueBox<SharedInstant?>(nil)
    /// The sound track, once the recording has one.
    private let audio = NIOLockedValueBox<AudioTrack?>(nil)
    private let settings: RecordingSettings
    private let clock: AgentClock
    private let spool: SegmentSpool
    private let sessionID: String
    private let t0Shared: SharedInstant
    private let onSegment: @Sendable (SpooledSegment) -> Void
    private let onFinish: @Sendable (RecordingSummary) -> Void
    let stats = PipelineStats()
    static let startTolerance: Int64 = 1_000_000

    init(sessionID: String, settings: RecordingSettings, clock: AgentClock, spool: SegmentSpool,
         t0Shared: SharedInstant, stopShared: SharedInstant?,
         onSegment: @escaping @Sendable (SpooledSegment) -> Void,
         onFinish: @escaping @Sendable (RecordingSummary) -> Void) {
        self.sessionID = sessionID
        self.settings = settings
        self.clock = clock
        self.spool = spool
        self.t0Shared = t0Shared
        self.stopShared.withLockedValue { $0 = stopShared }
        self.onSegment = onSegment
        self.onFinish = onFinish
    }

    /// Starts recording from a source opened at Prepare, or (a local recording) opens one now.
    func start(with prepared: PreparedSource? = nil) {
        ActiveRecordings.add(self)
        let handoff = prepared.map(PreparedHandoff.init)
        let thread = Thread { [self] in
            // Lock during takes (camera controls): pinned now, let go once it has ended.
            let controls = CameraControlsService.current.withLockedValue { $0 }
            controls?.takeStarted()
            let summary = run(handoff?.prepared)
            controls?.takeEnded()
            ActiveRecordings.remove(self)
            onFinish(summary)
        }
        thread.name = "dualcam-encode"
        thread.start()
    }

    /// Frames at or after this shared instant are not recorded.
    func stop(atShared instant: SharedInstant) {
        stopShared.withLockedValue { current in
            if let c = current, c <= instant { return }
            current = instant
        }
        audio.withLockedValue { $0 }?.stop(atShared: instant)
    }

    private func run(_ opened: PreparedSource?) -> RecordingSummary {
        var summary = RecordingSummary(segments: 0, framesCaptured: 0, framesDropped: 0, error: nil)
        var prepared = opened
        // A session this agent recorded part of before a restart goes on where it is now.
        let firstIndex = (spool.segments(session: sessionID).map(\.index).max() ?? -1) + 1
        // The folder is made when a recording starts, so finding it means this agent
        // recorded the take before, even when it was killed inside its first segment
        // (no segment finished): that is a rejoin too, or the sound track would be
        // filled from T0 across the time the agent was down.
        let rejoining = firstIndex > 0 || FileManager.default.fileExists(atPath: spool.sessionDirectory(sessionID))
        var segments = SegmentSink(sessionID: sessionID, spool: spool, segmentNanoseconds: settings.segmentNanoseconds,
                                   periodNanoseconds: settings.rate.periodNanoseconds, reserveBytes: settings.diskReserveBytes, stats: stats, firstIndex: firstIndex,
                                   onSegment: onSegment)
        do {
            try spool.prepare(session: sessionID)
            var sourceStart = t0Shared
            if rejoining, let estimate = clock.estimate {
                // Frames missed while the agent was down are a gap, not drops.
                sourceStart = max(t0Shared, estimate.shared(fromLocal: clock.now))
                summary.notes.append("rejoined the recording at \(Double(sourceStart - t0Shared) / 1e9) s after a restart")
            }
            let source = try prepared ?? PreparedSource(settings: settings, clock: clock)
            prepared = source
            if settings.audio.isEnabled {
                do {
                    let track = try AudioTrack(settings: settings.audio, clock: clock, t0Shared: t0Shared,
                                               startShared: sourceStart, stats: stats)
                    segments.audio = track.parameters
                    segments.lossless = track.losslessParameters
                    audio.withLockedValue { $0 = track }
                    if let stop = stopShared.withLockedValue({ $0 }) { track.stop(atShared: stop) }
                    track.start()
                } catch {
                    // Opened at Prepare and gone at T0 (unplugged, taken by another
                    // program): the pictures are recorded all the same.
                    summary.notes.append("no sound: \(error); the pictures were recorded without it")
                }
            }
            let queue = source.queue
            let maker = source.encoder.maker
            summary.sourceDescription = source.description
            if let note = maker.encoderNote { summary.notes.append(note) }
            if let track = audio.withLockedValue({ $0 }) {
                summary.sourceDescription += "; sound from \(track.sourceDescription), \(track.settings.summary), AAC"
            }
            let startsOnTheGrid = source.isGenlocked
            source.begin(stats: stats, stopLocal: { [self] in stopLocal() })
            var lastSlot: Int64 = -1
            var lastPts: Int64 = -1
            let audioTrack = audio.withLockedValue { $0 }
            var steering = PresetSteering(source: source, settings: settings, stats: stats)
            while let frame = try queue.pop() {
                summary.framesDropped += frame.droppedBefore
                guard let estimate = clock.estimate else { throw SpoolError("clock not synchronised") }
                guard let pts = Self.sessionTime(estimate.shared(fromLocal: LocalInstant(nanoseconds: frame.localCaptureNanoseconds)) - t0Shared,
                                                 onTheGrid: startsOnTheGrid) else { continue }
                let slot = segments.slot(ofPts: pts)
                var forceKey = slot != lastSlot
                if lastSlot >= 0, let change = try steering.beforeFrame(boundary: forceKey, pts: pts, now: clock.localNow(),
                                                                           maker: maker, segments: &segments) {
                    forceKey = true
                    summary.presetSwitches.append(change)
                }
                lastSlot = slot
                let encodeStart = MonotonicTime.now()
                let packets = try maker.make(frame.payload, ptsNanoseconds: pts, forceKeyframe: forceKey)
                steering.frameEncoded(nanoseconds: MonotonicTime.now() - encodeStart,
                                      latency: clock.localNow() - frame.localCaptureNanoseconds, queue: queue)
                if let track = audioTrack { try segments.storeAudio(track.take(before: pts)) }
                lastPts = pts
                if let parameters = maker.parameters { try segments.store(packets, parameters: parameters) }
                summary.framesCaptured += 1
                if summary.firstFrameStoredAfterT0Nanoseconds == nil {
                    summary.firstFrameStoredAfterT0Nanoseconds = estimate.shared(fromLocal: clock.now) - t0Shared
                }
                let latency = clock.localNow() - frame.localCaptureNanoseconds
                stats.update {
                    $0.encoded += packets.count
                    $0.encodeLatencyNanoseconds = latency
                    $0.queueDepth = queue.depth
                    $0.beforeKeyframeDrops = maker.droppedBeforeKeyframe
                }
            }
            if let parameters = maker.parameters { try segments.store(try maker.flush(), parameters: parameters) }
            if let track = audioTrack {
                // Sound ends with the pictures: at the stop instant, or after the last frame.
                track.stop(atShared: stopShared.withLockedValue { $0 } ?? t0Shared + lastPts + settings.rate.periodNanoseconds)
                let rest = track.finish()
                try segments.storeAudio(rest.packets)
                if let error = rest.error { summary.notes.append("sound stopped early: \(error)") }
                if rest.overruns > 0 {
                    summary.notes.append("sound: \(rest.overruns) overruns (the machine was too busy to read the microphone in time); silence stands where sound was lost, nothing after it moved")
                }
                if rest.lateStamps > 0 {
                    summary.notes.append("sound: \(rest.lateStamps) late timestamps set aside (a busy machine); the sound kept its place")
                }
            }
            try segments.finish()
            summary.framesDropped += maker.droppedBeforeKeyframe
        } catch {
            prepared?.close()
            if let track = audio.withLockedValue({ $0 }) {
                // The pictures failed; the sound recorded so far is kept with them.
                track.stop(atShared: SharedInstant(nanoseconds: .min))
                try? segments.storeAudio(track.finish().packets)
            }
            if case .stdin = settings.source { PipeInput.stopListening() }
            summary.error = DiskSpace.fullDiskMessage(for: error, path: spool.root) ?? "\(error)"
            // Keep what was complete: the open segment is closed if it can be, or removed.
            segments.salvage()
        }
        summary.segments = segments.count
        for (index, reason) in segments.lost {
            summary.notes.append("segment \(index) failed while it was written (\(reason)): it is lost; the recording went on in the next")
        }
        summary.framesDropped += prepared?.queue.drops ?? 0
        // The track's buffers and encoder go now, not when the last reference to this
        // pipeline does.
        audio.withLockedValue { $0 = nil }
        return summary
    }

    /// Where a frame captured `sinceT0` after T0 goes in the session, or nil when it was
    /// captured before the start. A genlocked frame meant for T0 may be stamped a few µs
    /// before it (clock error): it is the first frame, at 0. Anything earlier, and any
    /// frame of a free-running camera or a pipe before T0, is not recorded: moving it to 0
    /// would misplace it by up to the tolerance and bend the first frame step.
    static func sessionTime(_ sinceT0: Int64, onTheGrid: Bool) -> Int64? {
        if sinceT0 >= 0 { return sinceT0 }
        return onTheGrid && sinceT0 > -startTolerance ? 0 : nil
    }

    /// A pipe's producer waits for room instead of losing frames (and its reader for a
    /// picture to read into, see PipeInput), so two are enough to keep the encoder fed.
    static func queueCapacity(_ settings: RecordingSettings, paced: Bool) -> Int {
        paced ? pacedQueueCapacity(width: settings.width, height: settings.height, rate: settings.rate) : 2
    }

    /// Frames a camera (or the synthetic pattern) may get ahead of the encoder before it
    /// loses them: the camera's driver buffers are handed back as soon as each frame is
    /// converted, so this queue is what absorbs the encoder's stalls. Measured at 1080p30,
    /// libx264 veryfast on 2 cores: a P frame 11 ms, an IDR up to 47 ms, the first two
    /// frames 50-70 ms each (x264's buffers faulting in), all of it longer on a busy
    /// machine. 12 MiB is 4 frames at 1080p (133 ms at 30 fps), which covers that start
    /// with room to spare; 9 at 720p; capped at half a second and never under 2 (4K).
    /// Every frame here is resident memory, which the agent must keep small on a Pi, and
    /// a backlog that outgrows this means the encoder cannot keep up anyway.
    static func pacedQueueCapacity(width: Int, height: Int, rate: FrameRate) -> Int {
        let halfSecond = Int(rate.framesPerSecond / 2)
        let frameBytes = width * height * 3 / 2
        return max(2, min(halfSecond, (12 << 20) / max(frameBytes, 1)))
    }

    /// Ends the recording at the current instant (a signal, not the coordinator).
    func stopNow() {
        // Without an estimate no frame has been recorded: the pipeline fails on its own.
        guard let estimate = clock.estimate else { return }
        stop(atShared: estimate.shared(fromLocal: clock.now))
    }

    private func stopLocal() -> Int64? {
        guard let stop = stopShared.withLockedValue({ $0 }), let estimate = clock.estimate else { return nil }
        return estimate.local(fromShared: stop).nanoseconds
    }
}

/// Carries a prepared source into the encode thread's closure.
private struct PreparedHandoff: Sendable {
    let prepared: PreparedSource
}

/// Builds the configured source.
enum SourceFactory {
    /// `gridFromShared`: the shared instant from which a synthetic source's frames are
    /// counted (nil: from now). The genlocked grid is absolute, so this only decides
    /// which frame is the first.
    static func make(settings: RecordingSettings, clock: AgentClock, gridFromShared: SharedInstant?) throws -> any FrameSource {
        switch settings.source {
        case .synthetic:
            return SyntheticSource(width: settings.width, height: settings.height, rate: settings.rate,
                                   genlock: settings.genlock, clock: clock, startShared: gridFromShared,
                                   identity: settings.patternIdentity, freeRunPhase: settings.freeRunPhaseNanoseconds,
                                   crystalPPM: settings.crystalPPM, phaseLock: settings.phaseLock)
        case .v4l2(let device, let pixelFormat):
            // What was set on this camera comes back whenever it is opened (a replug too).
            CameraControlsService.current.withLockedValue { $0 }?.reapply(device: device)
            return try V4L2Source(device: device, pixelFormat: pixelFormat, width: settings.width, height: settings.height,
                                  rate: settings.rate, clock: clock, frameLogPath: settings.frameLogPath,
                                  alignStart: settings.phaseLock)
        case .stdin(let format):
            let pipe = settings.pipeMode
            let input = PipeInput.shared(format: format, width: pipe.width, height: pipe.height, rate: pipe.rate, clock: clock,
                                         latencyNanoseconds: settings.inputLatencyNanoseconds)
            return StdinSource(input: input, rate: pipe.rate, clock: clock, steered: settings.piSyncPort != nil && settings.phaseLock)
        }
    }
}
