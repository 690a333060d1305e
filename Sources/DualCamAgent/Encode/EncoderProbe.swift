import DualCamCore
import DualCamMedia
import DualCamNet
import NIOConcurrencyHelpers

/// Prepare's refusal when even the fastest preset cannot keep real time: the sentence, and
/// the sizes and rates measured to fit (sent to the coordinator, whose preset fitting uses them).
struct EncoderTooSlow: Error, CustomStringConvertible {
    var message: String
    var fits: [CaptureMode]
    var description: String { message }
}

/// What `--preset auto` found a node's encoder sustains on its own pictures.
struct ProbeResult: Sendable {
    /// The encoder that was measured and will be used.
    var encoder: String
    /// Presets measured, fastest first; the run stops at the first one short of the headroom.
    var speeds: [PresetSpeed]
    var outcome: PresetChoice.Outcome
    /// Set when nothing keeps real time: the fastest preset at smaller sizes.
    var capacity: EncoderCapacity?
    /// Why the encoder asked for was not used, for the operator.
    var note: String?
    /// Wall time the measurement took.
    var seconds: Double
    /// Taken from an earlier take with the same settings.
    var cached = false

    /// For the log: "veryfast, 2.4x real time (measured ultrafast 310 fps, ... in 2.1 s)".
    var summary: String {
        let measured = speeds.map(\.description).joined(separator: ", ")
        let choice = outcome.preset.map { "\($0), \(String(format: "%.1f", outcome.speed))x real time" } ?? "nothing keeps real time"
        return "\(encoder) \(choice) (" + (cached ? "as measured before: " : "measured ") + measured
            + (cached ? ")" : String(format: " in %.1f s)", seconds)) + (note.map { "; \($0)" } ?? "")
    }
}

/// Measures encoder presets on sample pictures, before a take, with the node's other
/// work (capture, other agents, a coordinator) running beside it: wall time, not CPU
/// time, since what matters is whether frames come out as fast as the camera delivers
/// them on this node as it is. Blocking, CPU-bound: run it off Swift's cooperative pool.
enum EncoderProbe {
    private static let cache = NIOLockedValueBox<[String: ProbeResult]>([:])

    /// The measurement for these settings, from the cache or taken now.
    static func result(samples: [ProbeSamples.Sample], settings: RecordingSettings) throws -> ProbeResult {
        let key = cacheKey(settings)
        if var known = cache.withLockedValue({ $0[key] }) {
            known.cached = true
            return known
        }
        let result = try measure(samples: samples, settings: settings)
        cache.withLockedValue { $0[key] = result }
        return result
    }

    /// An earlier take's measurement of these settings, if one is kept.
    static func cached(_ settings: RecordingSettings) -> ProbeResult? {
        cache.withLockedValue { $0[cacheKey(settings)] }
    }

    /// Why Prepare fails when even the fastest preset cannot keep real time, with the
    /// sizes and rates that were measured to fit.
    static func refusal(_ result: ProbeResult, settings: RecordingSettings) -> String {
        let fastest = result.speeds.first.map { "\($0.preset) encodes \(Int($0.framesPerSecond)) fps" }
            ?? "\(result.encoder) encodes no frame in time"
        var text = "\(settings.width)x\(settings.height) at \(settings.rate.decimalText) fps cannot be recorded in real time on this "
            + "node: even \(fastest) of its own pictures"
        if let advice = result.capacity?.advice(upTo: settings.rate, headroom: settings.presetHeadroom) {
            text += "; measured to fit here: \(advice)"
        } else {
            text += "; nothing measured down to 640x360 fits: use a faster node or the hardware encoder"
        }
        return text
    }

    /// A take that had to step faster proves the measurement optimistic (the node got
    /// busier, or hotter): the next Prepare measures again.
    static func forget(_ settings: RecordingSettings) {
        _ = cache.withLockedValue { $0.removeValue(forKey: cacheKey(settings)) }
    }

    static func cacheKey(_ s: RecordingSettings) -> String {
        "\(s.encoder) \(s.width)x\(s.height)@\(s.rate) crf \(s.crf ?? -1) bitrate \(s.bitrate ?? -1) \(s.source) headroom \(s.presetHeadroom)"
    }

    static func measure(samples: [ProbeSamples.Sample], settings: RecordingSettings) throws -> ProbeResult {
        let started = MonotonicTime.now()
        let (pictures, decodeCost) = try prepare(samples, width: settings.width, height: settings.height)
        guard !pictures.isEmpty else { throw SpoolError("--preset auto: the source gave no picture to measure the encoder on") }
        var encoder = settings.encoder
        var note: String?
        // The Pi 4's hardware block is preferred where it opens and keeps up: asked for, or
        // in place of the default libx264 (no other software encoder is swapped for it).
        let askedHardware = EncoderChoice.encoderSettings(settings).isHardware
        if askedHardware || (settings.encoder == EncoderChoice.fallback && HardwareEncoder.mayOpen) {
            let hardware = EncoderChoice.encoderSettings(settings, encoder: EncoderChoice.hardware)
            do {
                // No presets: it is measured as it is, and kept at real time and more.
                let speed = try EncoderSpeed.framesPerSecond(hardware, pictures, extraNanosecondsPerFrame: decodeCost, clock: SystemClock())
                let ratio = speed / settings.rate.framesPerSecond
                if ratio >= 1 {
                    return ProbeResult(encoder: EncoderChoice.hardware, speeds: [PresetSpeed(preset: "hardware", framesPerSecond: speed)],
                                       outcome: ratio >= settings.presetHeadroom ? .fits(preset: "hardware", speed: ratio)
                                                                               : .tight(preset: "hardware", speed: ratio),
                                       note: askedHardware ? nil : "the node's hardware encoder keeps up: encoding with \(EncoderChoice.hardware)",
                                       seconds: seconds(since: started))
                }
                if askedHardware { note = "\(EncoderChoice.hardware) encodes only \(Int(speed)) fps here; encoding with \(EncoderChoice.fallback)" }
            } catch {
                // Most machines have no such block: tried once per process (FFmpeg logs
                // its failure each time), and only worth a word when it was asked for.
                HardwareEncoder.failedToOpen()
                if askedHardware { note = "encoder \(EncoderChoice.hardware) is not usable here (\(error)); encoding with \(EncoderChoice.fallback)" }
            }
            encoder = EncoderChoice.fallback
        }
        var base = settings.encoderSettings
        base.encoder = encoder
        let speeds = try EncoderSpeed.ladder(base, pictures, rate: settings.rate, headroom: settings.presetHeadroom,
                                             extraNanosecondsPerFrame: decodeCost, clock: SystemClock())
        let outcome = PresetChoice.choose(speeds, rate: settings.rate, headroom: settings.presetHeadroom)
        var capacity: EncoderCapacity?
        if case .cannot = outcome {
            capacity = try smallerSizes(base, samples: samples, fastestHere: speeds.first, decodeCost: decodeCost)
        }
        return ProbeResult(encoder: encoder, speeds: speeds, outcome: outcome, capacity: capacity, note: note,
                           seconds: seconds(since: started))
    }

    /// The fastest preset at the standard sizes below the one asked for (three at most),
    /// for a refusal that names what fits: measured on the same pictures, scaled down.
    private static func smallerSizes(_ base: VideoEncoderSettings, samples: [ProbeSamples.Sample], fastestHere: PresetSpeed?,
                                     decodeCost: Int64) throws -> EncoderCapacity {
        var entries: [(width: Int, height: Int, framesPerSecond: Double)] = []
        if let fastestHere { entries.append((base.width, base.height, fastestHere.framesPerSecond)) }
        for size in EncoderCapacity.smallerSizes(width: base.width, height: base.height).prefix(3) {
            var settings = base
            (settings.width, settings.height, settings.preset) = (size.width, size.height, PresetChoice.ladder[0])
            let (pictures, _) = try prepare(samples, width: size.width, height: size.height)
            entries.append((size.width, size.height,
                             try EncoderSpeed.framesPerSecond(settings, pictures, extraNanosecondsPerFrame: decodeCost, clock: SystemClock())))
        }
        return EncoderCapacity(speeds: entries)
    }

    /// The samples as pictures of the recording's size, and what decoding one MJPEG frame
    /// cost (0 for raw pictures): that cost is the node's too, on every frame.
    private static func prepare(_ samples: [ProbeSamples.Sample], width: Int, height: Int) throws -> ([YUV420Image], Int64) {
        var pictures: [YUV420Image] = []
        var decoder: VideoDecoder?
        var decodeTime: Int64 = 0
        var decoded = 0
        let scaler = SwsScaler()
        for sample in samples {
            var picture: YUV420Image
            switch sample {
            case .picture(let image):
                picture = image
            case .mjpeg(let bytes):
                if decoder == nil { decoder = try VideoDecoder(parameters: CodecParameters(codecName: "mjpeg", width: width, height: height, pixelFormat: nil)) }
                let start = MonotonicTime.now()
                let frames = try decoder!.decode(EncodedPacket(data: bytes, ptsNanoseconds: Int64(decoded), dtsNanoseconds: Int64(decoded),
                                                               durationNanoseconds: 1, isKeyframe: true))
                decodeTime += MonotonicTime.now() - start
                decoded += 1
                guard let first = frames.first else { continue }
                picture = first.image
            }
            if picture.width != width || picture.height != height {
                picture = scaler.scale(picture, crop: PixelRect(x: 0, y: 0, width: picture.width, height: picture.height),
                                       toWidth: width, height: height)
            }
            pictures.append(picture)
        }
        return (pictures, decoded > 0 ? decodeTime / Int64(decoded) : 0)
    }

    private static func seconds(since start: Int64) -> Double { Double(MonotonicTime.now() - start) / 1e9 }
}
