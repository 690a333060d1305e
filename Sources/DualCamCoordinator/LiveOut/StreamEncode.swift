import DualCamCore
import DualCamMedia
import Foundation
import Synchronization

/// The programme encoded a second time, for the streams alone, at the size they are sent
/// at (`--stream-size`): the combined file keeps its own size and quality, the streams get
/// a bitrate platforms take. On a thread of its own, behind a one-picture mailbox: when
/// the machine cannot keep up, stream pictures are dropped (the newest wins), never a
/// picture of the file, which is composed and written before it is offered here.
final class StreamEncode: Sendable {
    let settings: VideoEncoderSettings
    /// The stream's codec parameters (SPS and PPS), known at once.
    let parameters: CodecParameters

    private struct Mailbox {
        var pending: (picture: YUV420Image, pts: Int64)?
        var finished = false
        var dropped = 0
        var encoded = 0
        var error: String?
    }

    private let mailbox = Mutex(Mailbox())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let worker: Worker

    /// `send` gets every packet, in order, on the encoding thread.
    init(settings: VideoEncoderSettings, send: @escaping @Sendable (EncodedPacket) -> Void) throws {
        self.settings = settings
        let encoder = try VideoEncoder(settings: settings)
        parameters = encoder.parameters
        worker = Worker(encoder: encoder, scaler: SwsScaler(), send: send)
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.name = "dualcam-stream-encode"
        thread.start()
    }

    /// The composed picture at `ptsNanoseconds` (from T0); replaces one not yet encoded.
    func offer(_ picture: YUV420Image, ptsNanoseconds: Int64) {
        let replaced = mailbox.withLock { box -> Bool in
            guard !box.finished else { return false }
            let replacing = box.pending != nil
            if replacing { box.dropped += 1 }
            box.pending = (picture, ptsNanoseconds)
            return replacing
        }
        if !replaced { wake.signal() }
    }

    /// Encodes what is pending, flushes the encoder and ends the thread.
    func finish() {
        let first = mailbox.withLock { box -> Bool in
            defer { box.finished = true }
            return !box.finished
        }
        guard first else { return }
        wake.signal()
        done.wait()
    }

    /// Pictures dropped because the encoder was still busy with an earlier one.
    var droppedPictures: Int { mailbox.withLock { $0.dropped } }
    var encodedPictures: Int { mailbox.withLock { $0.encoded } }
    var error: String? { mailbox.withLock { $0.error } }

    private func run() {
        while true {
            wake.wait()
            let (next, finished) = mailbox.withLock { box in
                defer { box.pending = nil }
                return (box.pending, box.finished)
            }
            do {
                if let next {
                    try worker.encode(next.picture, ptsNanoseconds: next.pts, width: settings.width, height: settings.height)
                    mailbox.withLock { $0.encoded += 1 }
                }
                if finished {
                    try worker.flush()
                    return
                }
            } catch {
                mailbox.withLock { $0.error = "\(error)" }
                if finished { return }
            }
        }
    }
}

/// The encoder and scaler, used by the encoding thread alone.
private final class Worker: @unchecked Sendable {
    // Invariant: after init, touched only by StreamEncode's one thread (`run`).
    private let encoder: VideoEncoder
    private let scaler: SwsScaler
    private let send: @Sendable (EncodedPacket) -> Void
    private var first = true

    init(encoder: VideoEncoder, scaler: SwsScaler, send: @escaping @Sendable (EncodedPacket) -> Void) {
        self.encoder = encoder
        self.scaler = scaler
        self.send = send
    }

    func encode(_ picture: YUV420Image, ptsNanoseconds: Int64, width: Int, height: Int) throws {
        let scaled = picture.width == width && picture.height == height ? picture
            : scaler.scale(picture, crop: PixelRect(x: 0, y: 0, width: picture.width, height: picture.height), toWidth: width, height: height)
        for packet in try encoder.encode(scaled, ptsNanoseconds: ptsNanoseconds, forceKeyframe: first) { send(packet) }
        first = false
    }

    func flush() throws {
        for packet in try encoder.flush() { send(packet) }
    }
}
