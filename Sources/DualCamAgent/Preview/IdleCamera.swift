import DualCamCore
import Foundation
import Logging
import NIOConcurrencyHelpers

/// The camera between takes. While a preview is wanted and no take holds the camera, it
/// is opened with the agent's own settings and its frames go to the preview tap only;
/// the moment a take prepares, it is let go (`claim` returns once its thread is out), and
/// it opens again when the take's source has ended. A pipe is not opened here: its
/// producer's frames belong to the recording (they would be lost to the preview).
final class IdleCamera: Sendable {
    private struct State {
        var wanted = false
        var claims = 0
        var run: IdleRun?
    }

    private let state = NIOLockedValueBox(State())
    /// What the idle camera captured and lost, for the telemetry sent between takes.
    let stats = PipelineStats()
    /// Opening and closing happen here, one at a time, off the callers' threads.
    private let queue = DispatchQueue(label: "dualcam-idle-camera")
    private let settings: RecordingSettings
    private let clock: AgentClock
    private let tap: PreviewTap
    private let logger: Logger

    init(settings: RecordingSettings, clock: AgentClock, tap: PreviewTap = .shared, logger: Logger) {
        self.settings = settings
        self.clock = clock
        self.tap = tap
        self.logger = logger
    }

    /// A preview is wanted (or no longer).
    func want(_ wanted: Bool) {
        state.withLockedValue { $0.wanted = wanted }
        queue.async { self.reconcile() }
    }

    /// A take is about to open the camera: the idle source is closed before this returns.
    func claim() {
        state.withLockedValue { $0.claims += 1 }
        queue.sync { self.reconcile() }
    }

    /// The take's source has ended (or never opened).
    func release() {
        state.withLockedValue { $0.claims = max(0, $0.claims - 1) }
        queue.async { self.reconcile() }
    }

    private func reconcile() {
        let (shouldRun, current) = state.withLockedValue { s in
            (s.wanted && s.claims == 0, s.run)
        }
        if let current, !shouldRun {
            current.stop()
            state.withLockedValue { $0.run = nil }
        } else if current == nil, shouldRun {
            if case .stdin = settings.source { return }
            do {
                let source = try SourceFactory.make(settings: settings, clock: clock, gridFromShared: nil)
                let run = IdleRun(SourceHandoff(source), tap: tap, stats: stats, rate: settings.rate)
                state.withLockedValue { $0.run = run }
                logger.info("preview: \(source.description) open between takes")
            } catch {
                // Busy (another program has it) or gone: the preview stays dark, the next
                // request or take end tries again.
                logger.warning("preview: cannot open the camera between takes: \(error)")
            }
        }
    }
}

/// One idle capture thread and the means to stop it and wait for it.
private final class IdleRun: Sendable {
    private let stopped = NIOLockedValueBox(false)
    private let done = DispatchSemaphore(value: 0)

    init(_ handoff: SourceHandoff, tap: PreviewTap, stats: PipelineStats, rate: FrameRate) {
        let thread = Thread { [stopped, done] in
            var source = handoff.source
            let zoom = ZoomStage(rate: rate)
            defer { done.signal() }
            // Far past, but far from Int64.min so a source's arithmetic cannot overflow.
            let stop: () -> Int64? = { stopped.withLockedValue { $0 } ? Int64.min / 4 : nil }
            while let frame = try? source.next(stopLocalNanoseconds: stop) {
                stats.update {
                    $0.captured += 1
                    $0.sourceDrops += frame.droppedBefore
                }
                tap.offer(zoom.apply(frame))
            }
        }
        thread.name = "dualcam-idle-camera"
        thread.start()
    }

    func stop() {
        stopped.withLockedValue { $0 = true }
        done.wait()
    }
}
