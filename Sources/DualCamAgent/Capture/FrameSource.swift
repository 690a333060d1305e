import DualCamCore

/// What a source delivers: a picture to encode, or bytes already compressed by the camera
/// (MJPEG to decode and re-encode; H.264 to pass through untouched).
enum FramePayload {
    /// By reference: 3 MB at 1080p, passed from capture to encoder without a copy.
    case picture(CapturedPicture)
    case mjpeg([UInt8])
    case h264([UInt8])
}

/// One frame from a source, stamped with its capture instant on the agent's local clock.
struct CapturedFrame {
    var payload: FramePayload
    var localCaptureNanoseconds: Int64
    /// Frames the source knows it lost just before this one (sequence gaps, late wake-ups).
    var droppedBefore: Int
}

/// A camera, a pipe or the synthetic pattern. `next` blocks until the next frame is
/// captured and returns nil at the end of the recording (stop instant or end of input).
protocol FrameSource {
    mutating func next(stopLocalNanoseconds: () -> Int64?) throws -> CapturedFrame?
    var description: String { get }
    /// Picture size of compressed payloads (what the camera or pipe delivers).
    var codedSize: (width: Int, height: Int) { get }
    /// True when payloads are H.264 access units, passed through without re-encoding.
    var deliversH264: Bool { get }
    /// False for a pipe: it is not paced by a camera, so it is held back when the
    /// encoder falls behind instead of losing frames.
    var isPaced: Bool { get }
    /// True when frames are taken on the shared clock's grid (the genlocked synthetic
    /// source, or a free-running one the phase lock steers onto it): one meant for T0 may
    /// then be stamped a clock error (or the lock's residual) before it.
    var isGenlocked: Bool { get }
}

extension FrameSource {
    var isGenlocked: Bool { false }
}
