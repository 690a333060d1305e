import DualCamCore
import DualCamMedia
import Foundation
import NIOConcurrencyHelpers

/// Encodes the tap's pictures for one coordinator connection on a thread of its own
/// (libx264 is blocking C work), and hands each access unit to `deliver`, which sends it
/// only if the link has nothing else to write. A picture not sent breaks the chain of
/// references, so the next one is a key frame; so is the first after every request, and
/// one each second, so that a viewer who arrives late starts within a second.
final class PreviewStreamer: Sendable {
    struct Picture: Sendable {
        var index: UInt64
        var h264: [UInt8]
        var keyframe: Bool
        var localCapture: Int64
        var width: Int
        var height: Int
    }

    private let tap: PreviewTap
    private let deliver: @Sendable (Picture) -> Bool
    private let onError: @Sendable (String) -> Void
    private let keyNext = NIOLockedValueBox(true)
    private let running = NIOLockedValueBox(false)
    private let ended = NIOLockedValueBox(false)

    init(tap: PreviewTap = .shared, deliver: @escaping @Sendable (Picture) -> Bool,
         onError: @escaping @Sendable (String) -> Void) {
        self.tap = tap
        self.deliver = deliver
        self.onError = onError
    }

    /// Applies a request (nil stops the preview); the thread starts with the first one.
    func request(_ settings: PreviewSettings?) {
        keyNext.withLockedValue { $0 = true }
        tap.configure(settings)
        guard settings != nil else { return }
        let start = running.withLockedValue { wasRunning in
            defer { wasRunning = true }
            return !wasRunning
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "dualcam-preview"
            thread.start()
        }
    }

    /// The connection ended: the thread stops, and so do the tap's offers.
    func end() {
        ended.withLockedValue { $0 = true }
        tap.configure(nil)
    }

    /// How much lower than the recording the preview's thread runs (nice, 0-19): on a
    /// node short of CPU (a browser on the same 2 cores) the preview waits, and loses
    /// pictures (newest wins), before the recording's encoder loses a frame. 5, not 10:
    /// once the studio page and the demo's agents were lighter (issue 37), a preview at
    /// 10 still waited behind the browser's screenshots at 1280x720 (27.7-28.4 pictures a
    /// second, after-bound p95 up to 155 ms); at 5, 28.6-30 and 91-130 ms, and the
    /// recording lost no frame, even with the agents at 1.5x headroom
    /// (tools/bench/studio-latency.py, docs/MEASUREMENTS.md).
    static let niceness: Int32 = 5

    private func run() {
        // Only this thread (the preview's own) is lowered.
        ThreadNiceness.lowerThisThread(to: Self.niceness)
        var encoder: VideoEncoder?
        var lastPts: Int64 = .min
        var index: UInt64 = 0
        while !ended.withLockedValue({ $0 }) {
            guard let (image, localCapture, settings) = tap.next(timeoutSeconds: 0.5) else { continue }
            do {
                let wanted = Self.encoderSettings(settings)
                if encoder?.settings != wanted {
                    encoder = try VideoEncoder(settings: wanted)
                    keyNext.withLockedValue { $0 = true }
                }
                guard localCapture > lastPts else { continue }
                lastPts = localCapture
                let force = keyNext.withLockedValue { key in defer { key = false }; return key }
                let packets = try encoder!.encode(image, ptsNanoseconds: localCapture, forceKeyframe: force)
                for packet in packets {
                    index += 1
                    let sent = deliver(Picture(index: index, h264: packet.data, keyframe: packet.isKeyframe, localCapture: packet.ptsNanoseconds,
                                               width: settings.width, height: settings.height))
                    if !sent { keyNext.withLockedValue { $0 = true } }
                }
            } catch {
                // A preview that cannot encode must not take the recording with it: it
                // says so once and stays dark until the next request.
                onError("\(error)")
                tap.configure(nil)
                encoder = nil
            }
        }
        running.withLockedValue { $0 = false }
    }

    static func encoderSettings(_ s: PreviewSettings) -> VideoEncoderSettings {
        .preview(width: s.width, height: s.height, fps: s.fps, bitrate: s.bitrate)
    }
}
