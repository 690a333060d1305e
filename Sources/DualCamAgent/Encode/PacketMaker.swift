import DualCamCore
import DualCamMedia

/// Turns captured frames into encoded packets: raw pictures through the encoder, MJPEG
/// decoded and re-encoded, H.264 passed through untouched (so its encoder settings do not
/// apply and segments can only be cut where the camera put keyframes).
final class PacketMaker {
    private var settings: RecordingSettings
    private let codedSize: (width: Int, height: Int)
    private var encoder: VideoEncoder?
    private var decoder: VideoDecoder?
    private var scaler: SwsScaler?
    private var passThrough: CodecParameters?
    /// Capture instants of MJPEG frames to be encoded as keyframes once decoded.
    private var keyframesAwaited: Set<Int64> = []
    /// Pass-through frames before the first keyframe cannot be decoded; they are dropped.
    private(set) var droppedBeforeKeyframe = 0
    /// Set when the encoder asked for could not open and libx264 took over.
    private(set) var encoderNote: String?

    /// The encoder is opened here, not at the first frame: x264 takes tens of ms to
    /// start, which the first frames' queue should not have to absorb.
    /// `preset`: what an automatic preset is already known to be (an earlier take's
    /// measurement), nil for the settings' own.
    init(settings: RecordingSettings, codedSize: (width: Int, height: Int), passesThrough: Bool, preset: String? = nil) throws {
        self.settings = settings
        self.codedSize = codedSize
        if !passesThrough {
            let (opened, note) = try EncoderChoice.open(settings, preset: preset)
            encoder = opened
            encoderNote = note
        }
    }

    var encoderName: String { encoder?.settings.encoder ?? "none" }
    /// The preset in effect (nil when nothing of ours encodes).
    var preset: String? { encoder?.settings.preset }
    var isHardware: Bool { encoder?.settings.isHardware ?? false }

    /// Drains the encoder in use and opens `encoder` with `preset` in its place, for the
    /// next frame (which the caller makes a keyframe: it starts a segment). Returns the old
    /// encoder's last packets, which belong before it.
    func switchEncoder(to name: String, preset: String) throws -> [EncodedPacket] {
        guard let old = encoder, old.settings.encoder != name || old.settings.preset != preset else { return [] }
        let rest = try old.flush()
        settings.encoder = name
        let (opened, note) = try EncoderChoice.open(settings, preset: preset)
        encoder = opened
        if let note { encoderNote = note }
        return rest
    }

    /// What the segments' muxer needs; nil until the first packet is known.
    var parameters: CodecParameters? { passThrough ?? encoder?.parameters }

    func make(_ payload: FramePayload, ptsNanoseconds pts: Int64, forceKeyframe: Bool) throws -> [EncodedPacket] {
        switch payload {
        case .picture(let picture):
            return try encode(picture.image, pts: pts, forceKeyframe: forceKeyframe)
        case .mjpeg(let bytes):
            if decoder == nil {
                // As many decoding threads as the node has cores (issue 19): a USB
                // webcam's 1080p MJPEG is a large share of a Pi's core.
                decoder = try VideoDecoder(parameters: CodecParameters(codecName: "mjpeg", width: codedSize.width,
                                                                       height: codedSize.height, pixelFormat: nil),
                                           threads: 0)
            }
            let packet = EncodedPacket(data: bytes, ptsNanoseconds: pts, dtsNanoseconds: pts,
                                       durationNanoseconds: settings.rate.periodNanoseconds, isKeyframe: true)
            // With frame threads a picture comes out a few packets late: it keeps its own
            // capture instant, and a keyframe asked for this one waits for it.
            if forceKeyframe { keyframesAwaited.insert(pts) }
            return try encodeDecoded(try decoder!.decode(packet))
        case .h264(let accessUnit):
            let key = H264Bitstream.isKeyframe(accessUnit)
            if passThrough == nil {
                guard key else {
                    droppedBeforeKeyframe += 1
                    return []
                }
                passThrough = CodecParameters(codecName: "h264", width: codedSize.width, height: codedSize.height,
                                              extradata: H264Bitstream.parameterSets(accessUnit), frameRate: settings.rate)
            }
            return [EncodedPacket(data: accessUnit, ptsNanoseconds: pts, dtsNanoseconds: pts,
                                  durationNanoseconds: settings.rate.periodNanoseconds, isKeyframe: key)]
        }
    }

    func flush() throws -> [EncodedPacket] {
        // Pictures still inside a frame-threaded MJPEG decoder are the last ones captured.
        let tail = try decoder.map { try encodeDecoded(try $0.flush()) } ?? []
        return try tail + (encoder?.flush() ?? [])
    }

    private func encodeDecoded(_ frames: [DecodedFrame]) throws -> [EncodedPacket] {
        var out: [EncodedPacket] = []
        for decoded in frames {
            let key = keyframesAwaited.remove(decoded.ptsNanoseconds) != nil
            out += try encode(decoded.image, pts: decoded.ptsNanoseconds, forceKeyframe: key)
            // The encoder has let go of the planes: the next frame is decoded into them.
            decoder?.recycle(decoded.image)
        }
        return out
    }

    private func encode(_ image: YUV420Image, pts: Int64, forceKeyframe: Bool) throws -> [EncodedPacket] {
        var picture = image
        if image.width != settings.width || image.height != settings.height {
            // A camera that settled on another size (or an MJPEG one) is scaled to the
            // session's size so all agents' segments match what the coordinator planned.
            if scaler == nil { scaler = SwsScaler() }
            picture = scaler!.scale(image, crop: PixelRect(x: 0, y: 0, width: image.width, height: image.height),
                                    toWidth: settings.width, height: settings.height)
        }
        guard let encoder else { throw SourceError("a picture arrived from a source that passes H.264 through") }
        return try encoder.encode(picture, ptsNanoseconds: pts, forceKeyframe: forceKeyframe)
    }
}
