import DualCamCore

/// One picture from a source, stamped with its capture instant on the agent's local clock.
struct CapturedFrame {
    var image: YUV420Image
    var localCaptureNanoseconds: Int64
    /// Frames the source knows it lost just before this one (sequence gaps, late wake-ups).
    var droppedBefore: Int
}

/// A camera, a pipe or the synthetic pattern. `next` blocks until the next frame is
/// captured and returns nil at the end of the recording (stop instant or end of input).
protocol FrameSource {
    mutating func next(stopLocalNanoseconds: () -> Int64?) throws -> CapturedFrame?
    var description: String { get }
}
