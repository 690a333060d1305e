import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import NIOConcurrencyHelpers

/// What the live composite's encoder sustains on this machine (`auto`, issue 19), measured
/// before the take while the agents prepare.
///
/// The rule: every output frame of the composite costs the decoding of one frame of every
/// camera (the cameras decoded side by side, as `CameraSegmentDecoder` does), the
/// compositing (and the filter), and the encode. The composite records with the slowest
/// preset at which that whole cost still runs `PresetChoice.headroom` (1.5) times faster
/// than the plan's rate; the rest of the machine is for receiving and remuxing the
/// cameras, the studio, and everything else the laptop does. The decode and compose part
/// is measured once and counted on every encoded frame, so more cameras leave a faster
/// preset, and a rig whose decoding alone eats the budget gets `ultrafast`.
struct CompositeMeasurement: Sendable, Equatable {
    var outcome: PresetChoice.Outcome
    /// Frames per second of the whole composite (decode + compose + encode) per preset,
    /// fastest first, as far up the ladder as the measurement went.
    var speeds: [PresetSpeed]
    /// Of each frame: decoding one picture of every camera, and compositing them.
    var decodeNanoseconds: Int64
    var composeNanoseconds: Int64
    var cameras: Int
    var seconds: Double
    /// The streams' own encode (`--stream-size`, `StreamEncode`) per preset, at their size,
    /// counted after the file's whole frame at its chosen preset: frames per second of the
    /// two back to back. Empty and nil when the streams share the file's encode.
    var streamSpeeds: [PresetSpeed] = []
    var streamOutcome: PresetChoice.Outcome?
    /// "640x360".
    var streamSize: String?

    /// The streams' own preset: the fastest when nothing keeps real time (their mailbox
    /// then drops pictures, never the file's).
    var streamPreset: String? { streamOutcome.map { $0.preset ?? PresetChoice.ladder[0] } }

    /// The preset the composite encodes with: the fastest when nothing keeps real time
    /// (the composite cannot refuse a take; it falls behind and finishes after the stop).
    var preset: String { outcome.preset ?? PresetChoice.ladder[0] }

    /// Frames per second of the encode alone per preset, for the governor's predictions.
    var encodeSpeeds: [PresetSpeed] {
        let fixed = Double(decodeNanoseconds + composeNanoseconds) / 1e9
        return speeds.compactMap { speed in
            let alone = 1 / speed.framesPerSecond - fixed
            return alone > 0 ? PresetSpeed(preset: speed.preset, framesPerSecond: 1 / alone) : nil
        }
    }

    /// "1.9x real time", or how far short of it.
    var speedText: String { Self.speedText(outcome, behind: "BEHIND real time (%.1fx): the combined file will finish after the stop") }

    /// "1.9x real time", "only 1.3x real time", or `behind` (a format taking the speed).
    static func speedText(_ outcome: PresetChoice.Outcome, behind: String) -> String {
        switch outcome {
        case .fits(_, let speed): String(format: "%.1fx real time", speed)
        case .tight(_, let speed): String(format: "only %.1fx real time", speed)
        case .cannot(let speed): String(format: behind, speed)
        }
    }

    /// "2 cameras decoded 3.1 ms + composed 1.2 ms a frame; measured ultrafast 80 fps, ... in 1.4 s".
    var details: String {
        String(format: "%d camera%@ decoded %.1f ms + composed %.1f ms a frame; measured %@ in %.1f s",
               cameras, cameras == 1 ? "" : "s", Double(decodeNanoseconds) / 1e6, Double(composeNanoseconds) / 1e6,
               speeds.map(\.description).joined(separator: ", "), seconds)
    }

    /// For the log: "superfast, 1.9x real time (2 cameras decoded ...)".
    var summary: String { "\(preset), \(speedText) (\(details))" + (streamsText.map { "; " + $0 } ?? "") }

    /// "the streams' own encode at 640x360: veryfast, 3.1x real time with the file's (measured ...)".
    var streamsText: String? {
        guard let streamOutcome, let streamPreset, let streamSize else { return nil }
        let speed = Self.speedText(streamOutcome, behind: "behind real time (%.1fx): the streams will drop pictures")
        return "the streams' own encode at \(streamSize): \(streamPreset), \(speed) with the file's (measured "
            + streamSpeeds.map(\.description).joined(separator: ", ") + ")"
    }

    /// For the manifest: frames per second per preset, rounded.
    var measured: [String: Double] { Self.rounded(speeds) }

    /// The same for the streams' own encode.
    var streamMeasured: [String: Double] { Self.rounded(streamSpeeds) }

    private static func rounded(_ speeds: [PresetSpeed]) -> [String: Double] {
        Dictionary(speeds.map { ($0.preset, $0.framesPerSecond.rounded()) }, uniquingKeysWith: { a, _ in a })
    }
}

/// Takes the measurement: representative pictures (each camera's synthetic test pattern,
/// encoded as the cameras encode, then decoded and laid out in the plan's layout) through
/// the pipeline the live composite runs. Blocking and CPU-bound: `start` runs it on a
/// thread of its own.
enum CompositeProbe {
    /// Distinct pictures per camera: enough motion for the encoder, and at most about
    /// 100 MB of pictures held (each camera's and the composed ones; 12 MB each at 4K).
    static func pictures(width: Int, height: Int) -> Int { width * height > 1920 * 1080 ? 4 : 8 }
    /// How long the decoding and the compositing are each timed.
    static let windowNanoseconds: Int64 = 300_000_000

    /// One measurement under way or done; the composer waits for it before its first frame.
    final class Pending: Sendable {
        let key: String
        private let done = DispatchSemaphore(value: 0)
        private let box = NIOLockedValueBox<(result: Result<CompositeMeasurement, Error>?, onLate: (@Sendable (Result<CompositeMeasurement, Error>) -> Void)?)>((nil, nil))

        init(key: String) { self.key = key }

        fileprivate func finish(_ result: Result<CompositeMeasurement, Error>) {
            let late = box.withLockedValue { state -> (@Sendable (Result<CompositeMeasurement, Error>) -> Void)? in
                state.result = result
                return state.onLate
            }
            done.signal()
            late?(result)
        }

        /// The result if the measurement is over, without waiting.
        var current: Result<CompositeMeasurement, Error>? { box.withLockedValue { $0.result } }

        /// Called with the result when it comes, if it was not there when `current` was asked.
        func whenLate(_ body: @escaping @Sendable (Result<CompositeMeasurement, Error>) -> Void) {
            let now = box.withLockedValue { state -> Result<CompositeMeasurement, Error>? in
                if state.result == nil { state.onLate = body }
                return state.result
            }
            if let now { body(now) }
        }

        /// Blocks until the measurement is over (the compose queue, before its first frame).
        func wait() -> Result<CompositeMeasurement, Error> {
            done.wait()
            done.signal()  // for the next waiter
            return current ?? .failure(CoordinatorError("composite measurement lost"))
        }
    }

    private static let cache = NIOLockedValueBox<[String: CompositeMeasurement]>([:])

    static func key(plan: TakePlan, cameras: Int) -> String {
        "\(plan.encoder) \(plan.width)x\(plan.height)@\(plan.rate) crf \(plan.crf) bitrate \(plan.bitrate ?? -1) "
            + "\(cameras) cameras \(plan.layout) \(plan.filter.kind)"
            + (plan.streamsEncodedApart ? " streams \(plan.streamPicture.width)x\(plan.streamPicture.height) \(plan.effectiveStreamBitrate)" : "")
    }

    /// Starts measuring for `cameras` cameras at the plan's size and rate, or hands back the
    /// measurement of an earlier take with the same settings.
    static func start(plan: TakePlan, cameras: Int) -> Pending {
        let key = key(plan: plan, cameras: cameras)
        let pending = Pending(key: key)
        if let known = cache.withLockedValue({ $0[key] }) {
            pending.finish(.success(known))
            return pending
        }
        let thread = Thread {
            let result = Result { try measure(plan: plan, cameras: cameras) }
            if case .success(let measured) = result { cache.withLockedValue { $0[key] = measured } }
            pending.finish(result)
        }
        thread.name = "dualcam.composite-probe"
        thread.start()
        return pending
    }

    /// A take whose composite had to step faster proves the measurement optimistic: the
    /// next take measures again.
    static func forget(_ key: String) {
        _ = cache.withLockedValue { $0.removeValue(forKey: key) }
    }

    static func measure(plan: TakePlan, cameras: Int) throws -> CompositeMeasurement {
        let started = MonotonicTime.now()
        let count = max(cameras, 1)
        let (width, height, rate) = (plan.width, plan.height, plan.rate)
        let samples = pictures(width: width, height: height)
        // Each camera's pattern in its own colour, encoded as a camera would (veryfast,
        // the agents' usual choice at this size on a small machine).
        var streams: [(parameters: CodecParameters, packets: [EncodedPacket])] = []
        for camera in 0..<count {
            let pattern = SyntheticPattern(width: width, height: height,
                                           identity: PatternIdentity(name: "camera \(camera + 1)", role: camera == 0 ? "host" : "guest"))
            let encoder = try VideoEncoder(settings: VideoEncoderSettings(
                encoder: plan.encoder, width: width, height: height, rate: rate, preset: "veryfast", crf: plan.crf,
                bitrate: plan.bitrate, gopFrames: samples, threads: 1))
            var packets: [EncodedPacket] = []
            for frame in 0..<samples {
                var image = YUV420Image(width: width, height: height)
                pattern.render(frameIndex: Int64(frame + camera * 7), code: UInt32(frame), into: &image)
                packets += try encoder.encode(image, ptsNanoseconds: rate.instant(ofFrame: Int64(frame)), forceKeyframe: frame == 0)
            }
            packets += try encoder.flush()
            streams.append((encoder.parameters, packets))
        }
        let (decodeNanoseconds, decoded) = try timeDecoding(streams, rate: rate, pictures: samples)
        let compositor = Compositor(outputWidth: width, outputHeight: height, scaler: SwsScaler())
        compositor.spec = plan.layout
        var composed: [YUV420Image] = []
        let composeStart = MonotonicTime.now()
        var compositions = 0
        while MonotonicTime.now() - composeStart < windowNanoseconds || compositions < samples {
            var picture = compositor.compose(decoded.map { $0[compositions % $0.count] })
            if !plan.filter.isIdentity { plan.filter.apply(to: &picture) }
            if composed.count < samples { composed.append(picture) }
            compositions += 1
        }
        let composeNanoseconds = (MonotonicTime.now() - composeStart) / Int64(compositions)
        let settings = VideoEncoderSettings(encoder: plan.encoder, width: width, height: height, rate: rate, preset: PresetChoice.ladder[0],
                                            tune: "zerolatency", crf: plan.bitrate == nil ? plan.crf : nil, bitrate: plan.bitrate,
                                            gopFrames: plan.compositeGOPFrames, threads: 0)
        let speeds = try EncoderSpeed.ladder(settings, composed, rate: rate, extraNanosecondsPerFrame: decodeNanoseconds + composeNanoseconds,
                                            clock: SystemClock())
        var measured = CompositeMeasurement(outcome: PresetChoice.choose(speeds, rate: rate), speeds: speeds,
                                            decodeNanoseconds: decodeNanoseconds, composeNanoseconds: composeNanoseconds, cameras: count,
                                            seconds: 0)
        if plan.streamsEncodedApart {
            let file = speeds.first { $0.preset == measured.preset }?.framesPerSecond ?? speeds[0].framesPerSecond
            measured.streamSpeeds = try measureStreams(plan: plan, composed: composed, fileFramesPerSecond: file)
            measured.streamOutcome = PresetChoice.choose(measured.streamSpeeds, rate: rate)
            measured.streamSize = "\(plan.streamPicture.width)x\(plan.streamPicture.height)"
        }
        measured.seconds = Double(MonotonicTime.now() - started) / 1e9
        return measured
    }

    /// The streams' own encode per preset, at their size and bitrate ceiling, on the
    /// composed pictures scaled as `StreamEncode` scales them, with the scaling and the
    /// file's whole frame (decoding, compositing, its encode at its preset) counted on every
    /// frame: the two share the machine, and whatever the stream takes, the file and the
    /// agents of a demo on the same machine lose. Measured beside a paced encode of the
    /// file instead, a 720p take streaming 640x360 here chose medium (53 fps, 1.8x) and the
    /// receiver got 221 of 600 pictures; counted so, it takes what keeps both in time.
    static func measureStreams(plan: TakePlan, composed: [YUV420Image], fileFramesPerSecond: Double) throws -> [PresetSpeed] {
        let size = plan.streamPicture
        let scaler = SwsScaler()
        let scaleStart = MonotonicTime.now()
        let scaled = composed.map {
            scaler.scale($0, crop: PixelRect(x: 0, y: 0, width: $0.width, height: $0.height), toWidth: size.width, height: size.height)
        }
        let scaleNanoseconds = (MonotonicTime.now() - scaleStart) / Int64(max(scaled.count, 1))
        let fileNanoseconds = Int64(1e9 / max(fileFramesPerSecond, 1))
        return try EncoderSpeed.ladder(LiveComposer.streamSettings(plan, filePreset: PresetChoice.ladder[0]), scaled, rate: plan.rate,
                                       extraNanosecondsPerFrame: scaleNanoseconds + fileNanoseconds, clock: SystemClock())
    }

    /// Decodes every camera's packets side by side, over and over for the window, as the
    /// live composer does with a batch of segments; wall time per frame of all cameras, and
    /// each camera's pictures.
    private static func timeDecoding(_ streams: [(parameters: CodecParameters, packets: [EncodedPacket])], rate: FrameRate,
                                     pictures count: Int) throws -> (Int64, [[YUV420Image]]) {
        let pictures = Pictures(decoders: try streams.map { try VideoDecoder(parameters: $0.parameters) })
        let span = rate.instant(ofFrame: Int64(count))
        var rounds = 0
        let start = MonotonicTime.now()
        repeat {
            let round = rounds
            DispatchQueue.concurrentPerform(iterations: streams.count) { camera in
                for packet in streams[camera].packets {
                    var shifted = packet
                    // Each round continues the timeline: a decoder sees one long stream.
                    shifted.ptsNanoseconds += Int64(round) * span
                    shifted.dtsNanoseconds += Int64(round) * span
                    pictures.decode(camera, shifted, keep: round == 0)
                }
            }
            rounds += 1
        } while MonotonicTime.now() - start < windowNanoseconds
        let elapsed = MonotonicTime.now() - start
        if let error = pictures.error { throw error }
        let kept = pictures.all
        guard kept.allSatisfy({ !$0.isEmpty }) else { throw CoordinatorError("the composite measurement decoded no picture") }
        return (elapsed / Int64(rounds * count), kept)
    }

    /// Every camera's decoder, and what the decoding threads give back.
    private final class Pictures: @unchecked Sendable {
        // Invariant: `slots` and `failure` are touched only under `lock`; `decoders[k]` is
        // used only by the one thread that decodes camera k in a round, and rounds follow
        // one another (concurrentPerform returns when every thread is done).
        private let lock = NSLock()
        private let decoders: [VideoDecoder]
        private var slots: [[YUV420Image]]
        private var failure: Error?

        init(decoders: [VideoDecoder]) {
            self.decoders = decoders
            slots = Array(repeating: [], count: decoders.count)
        }

        func decode(_ camera: Int, _ packet: EncodedPacket, keep: Bool) {
            do {
                let frames = try decoders[camera].decode(packet)
                if keep { lock.withLock { slots[camera] += frames.map(\.image) } }
            } catch {
                lock.withLock { failure = failure ?? error }
            }
        }

        var all: [[YUV420Image]] { lock.withLock { slots } }
        var error: Error? { lock.withLock { failure } }
    }
}
