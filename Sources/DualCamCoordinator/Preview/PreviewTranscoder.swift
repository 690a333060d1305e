import DualCamMedia
import Foundation
import NIOConcurrencyHelpers

/// One camera's preview as JPEG pictures, for viewers that cannot decode H.264 (browsers
/// give WebCodecs only to secure contexts: localhost or HTTPS). Every H.264 picture is
/// decoded, in order, since each depends on the one before; only the newest decoded one
/// is encoded as JPEG, and no more than `fps` a second. Runs on a queue of its own, so a
/// slow encode never holds up the link that delivered the picture.
final class PreviewTranscoder: @unchecked Sendable {
    // Invariant: `decoder`, `encoder` and `lastEmitted` are touched only on `queue`
    // (serial); `pending` only under its own lock.
    private let queue: DispatchQueue
    private let pending = NIOLockedValueBox(Pending())
    private let emit: @Sendable (PreviewHub.Picture) -> Void
    private let periodNanoseconds: Int64
    private var decoder: VideoDecoder?
    private var encoder: JPEGEncoder?
    private var lastEmitted: Int64 = 0

    private struct Pending {
        /// Pictures handed over and not decoded yet; past a few, the decoder is behind and
        /// the chain up to the next key frame is skipped.
        var queued = 0
        var skipToKey = true
    }

    init(camera: Int, fps: Int, emit: @escaping @Sendable (PreviewHub.Picture) -> Void) {
        queue = DispatchQueue(label: "dualcam-preview-jpeg-\(camera)")
        periodNanoseconds = 1_000_000_000 / Int64(max(fps, 1))
        self.emit = emit
    }

    func push(_ picture: PreviewHub.Picture) {
        let accept = pending.withLockedValue { p -> Bool in
            if p.queued >= 4 { p.skipToKey = true }
            if p.skipToKey {
                guard picture.keyframe else { return false }
                p.skipToKey = false
            }
            p.queued += 1
            return true
        }
        guard accept else { return }
        queue.async { [self] in
            pending.withLockedValue { $0.queued -= 1 }
            transcode(picture)
        }
    }

    private func transcode(_ picture: PreviewHub.Picture) {
        do {
            if decoder == nil {
                decoder = try VideoDecoder(parameters: CodecParameters(codecName: "h264", width: picture.width,
                                                                       height: picture.height, pixelFormat: nil))
            }
            let packet = EncodedPacket(data: [UInt8](picture.data), ptsNanoseconds: picture.captureSharedNanoseconds,
                                       dtsNanoseconds: picture.captureSharedNanoseconds, durationNanoseconds: 0,
                                       isKeyframe: picture.keyframe)
            guard let decoded = try decoder!.decode(packet).last else { return }
            defer { decoder?.recycle(decoded.image) }
            guard picture.captureSharedNanoseconds - lastEmitted >= periodNanoseconds * 3 / 4 else { return }
            let image = decoded.image
            if encoder?.width != image.width || encoder?.height != image.height {
                encoder = try JPEGEncoder(width: image.width, height: image.height)
            }
            let jpeg = try encoder!.encode(image)
            lastEmitted = picture.captureSharedNanoseconds
            var out = picture
            out.format = .jpeg
            out.keyframe = true
            out.data = Data(jpeg)
            emit(out)
        } catch {
            // A picture that does not decode (a gap upstream): start again at a key frame.
            decoder = nil
            pending.withLockedValue { $0.skipToKey = true }
        }
    }
}
