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
}

/// Capture → encode → segment, on a thread of its own: encoding is blocking, CPU-bound C
/// work that must not occupy Swift's cooperative pool, and a camera is paced by its own
/// clock, not by tasks. Every finished (fsynced) segment is handed to `onSegment`.
final class RecordingPipeline: Sendable {
    private let stopShared = NIOLockedValueBox<Int64?>(nil)
    private let settings: RecordingSettings
    private let clock: AgentClock
    private let spool: SegmentSpool
    private let sessionID: String
    private let t0Shared: Int64
    private let onSegment: @Sendable (SpooledSegment) -> Void
    private let onFinish: @Sendable (RecordingSummary) -> Void

    init(sessionID: String, settings: RecordingSettings, clock: AgentClock, spool: SegmentSpool,
         t0Shared: Int64, stopShared: Int64?,
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

    func start() {
        let thread = Thread { [self] in
            let summary = run()
            onFinish(summary)
        }
        thread.name = "dualcam-capture"
        thread.start()
    }

    /// Frames at or after this shared instant are not recorded.
    func stop(atShared instant: Int64) {
        stopShared.withLockedValue { current in
            if let c = current, c <= instant { return }
            current = instant
        }
    }

    private func run() -> RecordingSummary {
        var summary = RecordingSummary(segments: 0, framesCaptured: 0, framesDropped: 0, error: nil)
        // Half a second of frames between capture and encode.
        let queue = FrameQueue(capacity: max(Int(settings.rate.numerator / settings.rate.denominator) / 2, 4))
        startCapture(into: queue)
        var writer: SegmentWriter?
        var writerSlot: Int64 = -1
        var lastSlot: Int64 = -1
        do {
            try spool.prepare(session: sessionID)
            let encoder = try VideoEncoder(settings: settings.encoderSettings)
            func finishSegment() throws {
                guard let w = writer else { return }
                let info = try w.finish()
                let segment = SpooledSegment(
                    sessionID: sessionID, index: summary.segments,
                    path: spool.segmentPath(session: sessionID, index: summary.segments),
                    byteCount: info.byteCount, frameCount: info.frameCount,
                    firstPtsNanoseconds: info.firstPtsNanoseconds, durationNanoseconds: info.durationNanoseconds)
                try spool.record(segment)
                summary.segments += 1
                writer = nil
                onSegment(segment)
            }
            func store(_ packets: [EncodedPacket]) throws {
                for packet in packets {
                    let slot = max(packet.ptsNanoseconds, 0) / settings.segmentNanoseconds
                    if packet.isKeyframe && (writer == nil || slot != writerSlot) {
                        try finishSegment()
                        writer = try SegmentWriter(path: spool.segmentPath(session: sessionID, index: summary.segments),
                                                   parameters: encoder.parameters)
                        writerSlot = slot
                    }
                    // Before the first keyframe there is nothing decodable to store.
                    try writer?.write(packet)
                }
            }
            while let frame = try queue.pop() {
                summary.framesDropped += frame.droppedBefore
                guard let estimate = clock.estimate else { throw SpoolError("clock not synchronised") }
                var pts = estimate.shared(fromLocal: frame.localCaptureNanoseconds) - t0Shared
                // A frame stamped within half a period before T0 is the session's first
                // frame; its few µs of clock error are not worth a negative timestamp.
                if pts < -settings.rate.periodNanoseconds / 2 { continue }
                pts = max(pts, 0)
                let slot = pts / settings.segmentNanoseconds
                let forceKey = slot != lastSlot
                lastSlot = slot
                try store(try encoder.encode(frame.image, ptsNanoseconds: pts, forceKeyframe: forceKey))
                summary.framesCaptured += 1
            }
            try store(try encoder.flush())
            try finishSegment()
        } catch {
            queue.end(error: nil)
            summary.error = "\(error)"
            // Keep what was complete: the open segment is closed if it can be.
            if let w = writer, let info = try? w.finish() {
                let segment = SpooledSegment(
                    sessionID: sessionID, index: summary.segments,
                    path: spool.segmentPath(session: sessionID, index: summary.segments),
                    byteCount: info.byteCount, frameCount: info.frameCount,
                    firstPtsNanoseconds: info.firstPtsNanoseconds, durationNanoseconds: info.durationNanoseconds)
                if (try? spool.record(segment)) != nil {
                    summary.segments += 1
                    onSegment(segment)
                }
            }
        }
        summary.framesDropped += queue.drops
        return summary
    }

    /// The capture side: paced by the source, never waiting for the encoder.
    private func startCapture(into queue: FrameQueue) {
        let thread = Thread { [self] in
            var source = SyntheticSource(width: settings.width, height: settings.height, rate: settings.rate,
                                         genlock: settings.genlock, clock: clock, t0Shared: t0Shared)
            do {
                while let frame = try source.next(stopLocalNanoseconds: { stopLocal() }) {
                    if !queue.push(frame) && queue.isEnded { return }
                }
                queue.end(error: nil)
            } catch {
                queue.end(error: error)
            }
        }
        thread.name = "dualcam-source"
        thread.start()
    }

    private func stopLocal() -> Int64? {
        guard let stop = stopShared.withLockedValue({ $0 }), let estimate = clock.estimate else { return nil }
        return estimate.local(fromShared: stop)
    }
}
