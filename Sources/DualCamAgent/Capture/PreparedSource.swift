import DualCamCore
import DualCamNet
import DualCamMedia
import Foundation
import NIOConcurrencyHelpers

/// A session's source and encoder, opened at Prepare so that StartAt only starts: a
/// camera's first frames (and x264's first, slowest ones) are paid for before the take,
/// not in it. The source streams from the moment it opens; until `begin` its frames are
/// dropped (a camera settles its exposure meanwhile), afterwards they go to the encoder's
/// queue. A prepared source that is never begun must be `close`d.
final class PreparedSource: Sendable {
    let settings: RecordingSettings
    let description: String
    let queue: FrameQueue
    let encoder: EncoderHandoff
    let isGenlocked: Bool
    let isPaced: Bool
    /// When the source and encoder were opened, on the agent's local clock.
    let openedLocal: Int64
    /// Pictures to measure presets on (`--preset auto`), nil otherwise.
    private let samples: ProbeSamples?
    private let probe = NIOLockedValueBox<ProbeResult?>(nil)
    /// What `--preset auto` measured and chose, once `chooseAutomaticPreset` has run.
    var automatic: ProbeResult? { probe.withLockedValue { $0 } }

    private enum Stage {
        case warming
        case recording(stats: PipelineStats, stopLocal: @Sendable () -> Int64?)
        case closed
    }
    private let stage = NIOLockedValueBox<Stage>(.warming)
    private let firstFrameSeen = NIOLockedValueBox(false)
    private let failure = NIOLockedValueBox<String?>(nil)

    /// Opens the source and the encoder and starts capturing (frames dropped until `begin`).
    /// `onCaptureEnd` runs once the capture thread has let go of the source.
    init(settings: RecordingSettings, clock: AgentClock, onCaptureEnd: (@Sendable () -> Void)? = nil) throws {
        self.settings = settings
        let source = try SourceFactory.make(settings: settings, clock: clock, gridFromShared: nil)
        let known = settings.isAutomaticPreset ? EncoderProbe.cached(settings)?.outcome.preset : nil
        let maker = try PacketMaker(settings: settings, codedSize: source.codedSize, passesThrough: source.deliversH264,
                                    preset: known == "hardware" ? nil : known)
        samples = settings.isAutomaticPreset && !source.deliversH264 ? ProbeSamples() : nil
        description = source.description + (source.deliversH264 ? ", passed through" : ", encoded with \(maker.encoderName)")
        encoder = EncoderHandoff(maker)
        isGenlocked = source.isGenlocked
        isPaced = source.isPaced
        queue = FrameQueue(capacity: RecordingPipeline.queueCapacity(settings, paced: source.isPaced))
        openedLocal = clock.localNow()
        startCapture(source, onEnd: onCaptureEnd)
    }

    /// Waits until the first frame was captured (Ready means the camera delivers), or
    /// throws after `seconds`.
    func waitForFirstFrame(seconds: Double) async throws {
        // Polled: a frame comes every 8-40 ms once the source runs, and this happens once a take.
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && !firstFrameSeen.withLockedValue({ $0 }) {
            if let failure = failure.withLockedValue({ $0 }) {
                close()
                throw SpoolError(failure)
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        guard firstFrameSeen.withLockedValue({ $0 }) else {
            close()
            throw SpoolError("\(description): no frame within \(Int(seconds)) s of opening; is the camera (or the pipe's producer) delivering?")
        }
    }

    /// What a preset-less encoder (the hardware one) is opened with: it ignores it.
    static let noPreset = RecordingSettings.provisionalPreset

    /// `--preset auto`: measures the encoder's presets on the first captured pictures (or
    /// takes an earlier take's measurement of the same settings) and reopens the encoder
    /// with the slowest that keeps the headroom. Throws, naming what would fit, when even
    /// the fastest cannot keep real time. Blocking and CPU-bound: not on the cooperative pool.
    @discardableResult
    func chooseAutomaticPreset() throws -> ProbeResult? {
        guard let samples else { return nil }
        // A camera fills the samples in a third of a second; a pipe holds its frames
        // until the take begins, so it has given its first and that must do.
        let deadline = MonotonicTime.now() + (isPaced ? 2_000_000_000 : 200_000_000)
        while !samples.isFull && MonotonicTime.now() < deadline { usleep(10_000) }
        defer { samples.finish() }
        let result = try EncoderProbe.result(samples: samples.all, settings: settings)
        guard let preset = result.outcome.preset else {
            throw EncoderTooSlow(message: EncoderProbe.refusal(result, settings: settings),
                                 fits: result.capacity?.modesThatFit(upTo: settings.rate) ?? [])
        }
        _ = try encoder.maker.switchEncoder(to: result.encoder, preset: preset == "hardware" ? Self.noPreset : preset)
        probe.withLockedValue { $0 = result }
        return result
    }

    /// From now on frames go to the encoder, counted in `stats`, until `stopLocal` says stop.
    func begin(stats: PipelineStats, stopLocal: @escaping @Sendable () -> Int64?) {
        stage.withLockedValue { if case .warming = $0 { $0 = .recording(stats: stats, stopLocal: stopLocal) } }
    }

    /// Ends capture without recording (a cancelled or abandoned session).
    func close() {
        stage.withLockedValue { $0 = .closed }
        queue.end(error: nil)
    }

    /// The capture side: paced by the source, never waiting for the encoder.
    private func startCapture(_ source: any FrameSource, onEnd: (@Sendable () -> Void)?) {
        let handoff = SourceHandoff(source)
        let period = settings.rate.periodNanoseconds
        let thread = Thread { [self] in
            defer { onEnd?() }
            var source = handoff.source
            let wait = !source.isPaced
            let preview = PreviewTap.shared
            let zoom = ZoomStage(rate: settings.rate)
            do {
                while let captured = try source.next(stopLocalNanoseconds: { self.stopLocal() }) {
                    // Zoomed before anything sees it: the recording and the preview alike.
                    let frame = zoom.apply(captured)
                    firstFrameSeen.withLockedValue { $0 = true }
                    // Before a take and during it, the preview sees what is captured.
                    preview.offer(frame)
                    if let samples, !samples.isFull, case .warming = stage.withLockedValue({ $0 }) {
                        samples.offer(frame.payload)
                    }
                    // A pipe loses nothing (its producer waits for us): its frames are held
                    // until the recording begins, where a camera's are let go.
                    while wait, case .warming = stage.withLockedValue({ $0 }) { usleep(2_000) }
                    guard case .recording(let stats, _) = stage.withLockedValue({ $0 }) else { continue }
                    stats.update {
                        $0.captured += 1
                        $0.sourceDrops += frame.droppedBefore
                        if $0.capturingSinceLocal == nil { $0.capturingSinceLocal = frame.localCaptureNanoseconds - period }
                    }
                    if !queue.push(frame, wait: wait) {
                        if queue.isEnded { return }
                        stats.update { $0.backlogDrops += 1 }
                    }
                }
                queue.end(error: nil)
            } catch {
                failure.withLockedValue { $0 = "\(error)" }
                queue.end(error: error)
            }
        }
        thread.name = "dualcam-source"
        thread.start()
    }

    private func stopLocal() -> Int64? {
        switch stage.withLockedValue({ $0 }) {
        case .warming: nil
        case .recording(_, let stopLocal): stopLocal()
        // Long past, yet far enough from Int64.min that a source's stop arithmetic
        // (a period either side) cannot overflow.
        case .closed: Int64.min / 4
        }
    }
}

/// Moves the encoder (not Sendable: libavcodec state) from the task that opened it to
/// the encode thread.
final class EncoderHandoff: @unchecked Sendable {
    // Invariant: created by the preparing task, which alone uses it (to resolve an
    // automatic preset) until the take starts; then used by the one encode thread alone.
    let maker: PacketMaker
    init(_ maker: PacketMaker) { self.maker = maker }
}

/// Moves a source (not Sendable: a camera handle, a parser) to the capture thread.
final class SourceHandoff: @unchecked Sendable {
    // Invariant: written once at init, read once by the capture thread that owns it after.
    let source: any FrameSource
    init(_ source: any FrameSource) { self.source = source }
}

/// The sessions a connection prepared and has not started yet. They hold the camera, so
/// a connection that ends discards its own.
final class PreparedSessions: Sendable {
    private let sessions = NIOLockedValueBox<[String: PreparedSource]>([:])
    /// The camera's user between takes (the preview), let go while a take holds it.
    let camera: IdleCamera?

    init(camera: IdleCamera? = nil) {
        self.camera = camera
    }

    func open(sessionID: String, settings: RecordingSettings, clock: AgentClock, waitSeconds: Double = 10) async throws
        -> PreparedSource
    {
        camera?.claim()
        let source: PreparedSource
        do {
            source = try PreparedSource(settings: settings, clock: clock, onCaptureEnd: { [camera] in camera?.release() })
        } catch {
            camera?.release()
            throw error
        }
        try await source.waitForFirstFrame(seconds: waitSeconds)
        do {
            try await Blocking.run { try source.chooseAutomaticPreset() }
        } catch {
            source.close()
            throw error
        }
        sessions.withLockedValue { $0[sessionID] = source }
        return source
    }

    func take(_ sessionID: String) -> PreparedSource? {
        sessions.withLockedValue { $0.removeValue(forKey: sessionID) }
    }

    func discard(_ sessionID: String) {
        take(sessionID)?.close()
    }

    func discardAll() {
        let all = sessions.withLockedValue { all in defer { all = [:] }; return all }
        for source in all.values { source.close() }
    }
}
