import DualCamCore
import DualCamMedia
import Foundation

/// What a coordinator asked to see (§16 of PROTOCOL.md).
struct PreviewSettings: Sendable, Equatable {
    var width: Int
    var height: Int
    var fps: Int
    var bitrate: Int
}

/// Where the live preview takes its pictures: every capture thread offers each frame it
/// captured, and the tap keeps at most one, scaled down, for the preview encoder. It never
/// makes a capture thread wait: with no preview wanted an offer is one lock and a compare;
/// a frame that comes too soon for the preview's rate, or while the encoder still works on
/// the previous picture, is left alone (the newest picture wins, none queue). Only a frame
/// taken is scaled, on the capture thread, so at most `fps` scales a second happen there.
final class PreviewTap: @unchecked Sendable {
    // Invariant: `settings`, `nextDue` and `pending` are touched only while `condition`
    // is locked; `scaler` and `jpegDecoder` only by the thread holding `scaling`.
    private let condition = NSCondition()
    private var settings: PreviewSettings?
    private var nextDue: Int64 = .min
    private var pending: (image: YUV420Image, localCapture: Int64)?
    private let scaling = NSLock()
    private let scaler = SwsScaler()
    private var jpegDecoder: VideoDecoder?

    /// The agent's one tap: a camera is a process-wide resource, and so is its picture.
    static let shared = PreviewTap()

    /// Start (or change) the preview; nil stops it.
    func configure(_ settings: PreviewSettings?) {
        condition.lock()
        self.settings = settings
        nextDue = .min
        if settings == nil { pending = nil }
        condition.broadcast()
        condition.unlock()
    }

    var isWanted: Bool {
        condition.lock()
        defer { condition.unlock() }
        return settings != nil
    }

    /// Called by a capture thread for every frame it captured.
    func offer(_ frame: CapturedFrame) {
        // A camera passing H.264 through has no picture to show without a decoder per
        // frame; it has no preview (PROTOCOL.md §16).
        if case .h264 = frame.payload { return }
        condition.lock()
        guard let settings, pending == nil, frame.localCaptureNanoseconds >= nextDue else {
            condition.unlock()
            return
        }
        // Paced to the preview's rate on capture times, with a quarter period of slack so
        // that a 30 fps camera feeding a 15 fps preview takes every other frame steadily.
        let period = 1_000_000_000 / Int64(settings.fps)
        nextDue = frame.localCaptureNanoseconds + period - period / 4
        condition.unlock()
        // Two capture threads may overlap for a moment (an idle source closing while a
        // take's opens); the second simply skips a frame.
        guard scaling.try() else { return }
        guard let source = picture(of: frame) else {
            scaling.unlock()
            return
        }
        let crop = LayoutGeometry.coverCrop(sourceWidth: source.width, sourceHeight: source.height,
                                            slotWidth: settings.width, slotHeight: settings.height)
        let scaled = scaler.scale(source, crop: crop, toWidth: settings.width, height: settings.height)
        scaling.unlock()
        condition.lock()
        if self.settings == settings { pending = (scaled, frame.localCaptureNanoseconds) }
        condition.signal()
        condition.unlock()
    }

    /// The frame's picture; an MJPEG frame (most USB cameras at 720p and up) is decoded
    /// here, only when the preview takes it.
    private func picture(of frame: CapturedFrame) -> YUV420Image? {
        switch frame.payload {
        case .picture(let picture):
            return picture.image
        case .mjpeg(let bytes):
            do {
                if jpegDecoder == nil {
                    jpegDecoder = try VideoDecoder(parameters: CodecParameters(codecName: "mjpeg", width: 0, height: 0,
                                                                               pixelFormat: nil))
                }
                let packet = EncodedPacket(data: bytes, ptsNanoseconds: frame.localCaptureNanoseconds,
                                           dtsNanoseconds: frame.localCaptureNanoseconds, durationNanoseconds: 0,
                                           isKeyframe: true)
                return try jpegDecoder!.decode(packet).last?.image
            } catch {
                jpegDecoder = nil  // a corrupt picture: the next one starts afresh
                return nil
            }
        case .h264:
            return nil
        }
    }

    /// Blocks until a picture is there (with the settings it was made for), or returns nil
    /// after `timeoutSeconds` so the caller can check whether it should go on.
    func next(timeoutSeconds: Double) -> (image: YUV420Image, localCapture: Int64, settings: PreviewSettings)? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while pending == nil {
            if !condition.wait(until: deadline) { return nil }
        }
        guard let taken = pending, let settings else { return nil }
        pending = nil
        return (taken.image, taken.localCapture, settings)
    }
}
