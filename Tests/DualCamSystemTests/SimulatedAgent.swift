import Crypto
import DualCamCore
import DualCamMedia
import DualCamProtocol
import Foundation
import NIOConcurrencyHelpers

/// One `dualcam-agent` as the coordinator hears it, with no process, connection or camera:
/// Ready to Prepare; from StartAt a segment of real TS pictures (160x90) every
/// `segmentNanoseconds`; what is missing at Resume; RecordingFinished once its last segment
/// is out after the Stop. Time is a value: the caller says when (`due(now:)`).
///
/// Used by `InProcessAgents` (a take on its own) and `InProcessRig` (a whole rig), which
/// carry its answers to the take or into the rig's links.
struct SimulatedAgent {
    let name: String
    let segmentNanoseconds: Int64
    var sessionID = ""
    var t0: Int64?
    var stop: Int64?
    /// Segments the coordinator holds (acknowledged as durable, or listed at Resume).
    var delivered = Set<Int>()
    var finishedSent = false

    /// How long after its end a segment is handed in (a real agent's encoder and upload
    /// take a moment), and so RecordingFinished after the stop.
    let lagNanoseconds: Int64

    init(name: String, segmentNanoseconds: Int64, lagNanoseconds: Int64 = 0) {
        self.name = name
        self.segmentNanoseconds = segmentNanoseconds
        self.lagNanoseconds = lagNanoseconds
    }

    var stopped: Bool { stop != nil }

    /// Recording a take it has not finished: its HelloAck names it, as a real agent's does.
    var recordingSessions: [String] { t0 != nil && !finishedSent ? [sessionID] : [] }

    /// What it answers to a message from the coordinator.
    mutating func receive(_ body: Dualcam_V1_Envelope.OneOf_Body) throws -> [CoordinatorEvent] {
        switch body {
        case .prepare(let prepare):
            // A new take: nothing of the last one carries over, as on a real agent.
            if prepare.sessionID != sessionID { self = SimulatedAgent(name: name, segmentNanoseconds: segmentNanoseconds, lagNanoseconds: lagNanoseconds) }
            sessionID = prepare.sessionID
            var ready = Dualcam_V1_Ready()
            ready.sessionID = prepare.sessionID
            return [.ready(ready)]
        case .startAt(let start):
            t0 = start.t0SharedNs
            if start.stopSharedNs > 0 { stop = start.stopSharedNs }
        case .stop(let order):
            stop = min(stop ?? .max, order.stopSharedNs)
            if t0 == nil { return finish() }  // prepared, never started: nothing recorded
        case .resume(let resume):
            delivered = Set(resume.held.map(Int.init))
        default:
            break
        }
        return []
    }

    /// Segments cut by `now` (less the lag) that the coordinator does not hold, then
    /// RecordingFinished once the stop's segment is out.
    mutating func due(now at: Int64) throws -> [CoordinatorEvent] {
        let now = at - lagNanoseconds
        guard let t0, !finishedSent else { return [] }
        let end = min(now, stop ?? .max)
        guard end > t0 else {
            if let stop, now >= stop { return finish() }
            return []
        }
        var events: [CoordinatorEvent] = []
        for k in 0..<segmentCount(upTo: end) where !delivered.contains(k) {
            events += try segment(k, until: end - t0)
            delivered.insert(k)
        }
        if let stop, now >= stop { events += finish() }
        return events
    }

    /// Segments whole by `instant` (all of them, the last one short, once stopped there).
    private func segmentCount(upTo instant: Int64) -> Int {
        let elapsed = instant - t0!
        let whole = Int(elapsed / segmentNanoseconds)
        guard let stop, instant >= stop else { return whole }
        return elapsed % segmentNanoseconds == 0 ? whole : whole + 1
    }

    private mutating func finish() -> [CoordinatorEvent] {
        guard !finishedSent else { return [] }
        finishedSent = true
        var finished = Dualcam_V1_RecordingFinished()
        finished.sessionID = sessionID
        if let t0, let stop, stop > t0 {
            finished.segmentCount = UInt32(segmentCount(upTo: stop))
            let rate = SimulatedSegments.rate
            finished.framesCaptured = UInt64(rate.firstFrame(atOrAfter: stop - t0) - rate.firstFrame(atOrAfter: 0))
        }
        return [.recordingFinished(finished)]
    }

    private func segment(_ k: Int, until end: Int64) throws -> [CoordinatorEvent] {
        let first = Int64(k) * segmentNanoseconds
        let last = min(first + segmentNanoseconds, end)
        let (data, frames) = try SimulatedSegments.encoded(from: first, to: last)
        var offer = Dualcam_V1_SegmentOffer()
        offer.sessionID = sessionID
        offer.index = UInt32(k)
        offer.size = UInt64(data.count)
        offer.sha256 = Data(SHA256.hash(data: data))
        offer.firstPtsNs = first
        offer.durationNs = last - first
        offer.frameCount = UInt32(frames)
        var chunk = Dualcam_V1_SegmentData()
        chunk.sessionID = sessionID
        chunk.index = UInt32(k)
        chunk.data = data
        chunk.last = true
        return [.segmentOffered(offer), .segmentData(chunk)]
    }
}

/// The TS segments simulated agents deliver: every agent films the same pictures, so each
/// span is encoded once for the whole test process.
enum SimulatedSegments {
    static let rate = FrameRate.fps30
    private static let cache = NIOLockedValueBox<[String: (data: Data, frames: Int)]>([:])

    /// The pictures from `first` to `last` (from T0), 160x90 at 30 fps, as one TS segment.
    static func encoded(from first: Int64, to last: Int64) throws -> (Data, Int) {
        let key = "\(first)-\(last)"
        if let hit = cache.withLockedValue({ $0[key] }) { return hit }
        let settings = VideoEncoderSettings(width: 160, height: 90, rate: rate, preset: "ultrafast", gopFrames: 300, threads: 1)
        let encoder = try VideoEncoder(settings: settings)
        let path = NSTemporaryDirectory() + "dualcam-inprocess-\(UUID().uuidString).ts"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try SegmentWriter(path: path, parameters: encoder.parameters)
        var picture = YUV420Image(width: 160, height: 90)
        var frames = 0
        for frame in rate.firstFrame(atOrAfter: first)..<rate.firstFrame(atOrAfter: last) {
            for j in picture.y.indices { picture.y[j] = UInt8(truncatingIfNeeded: 16 + Int(frame) * 3 + j % 160) }
            for packet in try encoder.encode(picture, ptsNanoseconds: rate.instant(ofFrame: frame), forceKeyframe: frames == 0) {
                try writer.write(packet)
            }
            frames += 1
        }
        for packet in try encoder.flush() { try writer.write(packet) }
        _ = try writer.finish()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        cache.withLockedValue { $0[key] = (data, frames) }
        return (data, frames)
    }
}
