import DualCamCore
import NIOConcurrencyHelpers

/// The first pictures a prepared source captures, kept for `--preset auto` to measure the
/// encoder on: the node's own camera, size and content, not a test card. Copies, so the
/// capture's picture pool gets its buffers back at once.
final class ProbeSamples: Sendable {
    enum Sample: Sendable {
        case picture(YUV420Image)
        case mjpeg([UInt8])
    }

    /// Distinct frames are enough to show motion; more would only cost memory (3 MB each at 1080p).
    static let wanted = 8
    private let samples = NIOLockedValueBox<[Sample]>([])

    private let finished = NIOLockedValueBox(false)

    /// Full, or finished with: the capture thread stops copying.
    var isFull: Bool { finished.withLockedValue { $0 } || samples.withLockedValue { $0.count >= Self.wanted } }
    var all: [Sample] { samples.withLockedValue { $0 } }

    /// Lets the copies go (24 MB at 1080p) once measured.
    func finish() {
        finished.withLockedValue { $0 = true }
        samples.withLockedValue { $0 = [] }
    }

    /// Called by the capture thread for every frame while the source warms up.
    func offer(_ payload: FramePayload) {
        guard !isFull else { return }
        let sample: Sample
        switch payload {
        case .picture(let picture): sample = .picture(Self.copy(picture.image))
        case .mjpeg(let bytes): sample = .mjpeg(bytes)
        // Passed through: nothing of ours encodes it.
        case .h264: return
        }
        samples.withLockedValue { if $0.count < Self.wanted { $0.append(sample) } }
    }

    /// Planes of its own: an array assignment would share the pool's buffers, and the
    /// pool's next fill would then copy them in the capture thread.
    private static func copy(_ image: YUV420Image) -> YUV420Image {
        var copy = image
        copy.y = image.y.withUnsafeBufferPointer { Array($0) }
        copy.cb = image.cb.withUnsafeBufferPointer { Array($0) }
        copy.cr = image.cr.withUnsafeBufferPointer { Array($0) }
        return copy
    }
}
