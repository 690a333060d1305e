import DualCamCoordinator

/// Which of a viewer's key-frame asks go on to the agents. Each makes an agent encode an
/// IDR, so a viewer may not turn a preview into key frames only: at most one per camera
/// every `interval`. Per camera, not per viewer: with one limit for all, a page whose
/// decoders fell behind together (its thread was busy a moment) had every ask but the
/// first ignored, and the other cameras froze until their next regular key frame, up to
/// a second (tools/bench/studio-latency.sh).
struct KeyframeAsks {
    static let interval: Int64 = 250_000_000

    private var last: [Int: Int64] = [:]

    /// True when the ask for `camera` at `now` (ns) should reach the hub.
    mutating func allow(camera: Int, now: Int64) -> Bool {
        guard (0..<PreviewHub.maxCameras).contains(camera) else { return false }
        if let previous = last[camera], now - previous < Self.interval { return false }
        last[camera] = now
        return true
    }
}
