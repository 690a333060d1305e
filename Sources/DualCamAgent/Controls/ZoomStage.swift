import DualCamCore
import DualCamMedia

/// Applies the digital zoom to one capture thread's frames: the crop of the picture at the
/// frame's capture instant, scaled back to the picture's size into a picture of its own
/// pool. At 1× a frame passes untouched (no copy). An MJPEG frame is decoded first when
/// zoomed (the encoder decodes it anyway); an H.264 one cannot be cropped without
/// re-encoding and passes as it is (`cannotZoom` says so). Owned by its capture thread.
final class ZoomStage {
    private let zoom: DigitalZoom
    private let scaler = SwsScaler(fast: true)
    private var pool: PicturePool?
    private var jpegDecoder: VideoDecoder?
    private let rate: FrameRate
    private(set) var cannotZoom: String?

    init(rate: FrameRate, zoom: DigitalZoom = .shared) {
        self.rate = rate
        self.zoom = zoom
    }

    func apply(_ frame: CapturedFrame) -> CapturedFrame {
        let ramp = zoom.current
        let instant = frame.localCaptureNanoseconds
        if ramp.isIdentity(at: instant) { return frame }
        let source: YUV420Image
        switch frame.payload {
        case .picture(let picture): source = picture.image
        case .mjpeg(let bytes):
            guard let decoded = decode(bytes, at: instant) else { return frame }
            source = decoded
        case .h264:
            cannotZoom = "digital zoom needs pictures; this camera sends H.264, which is recorded as it comes (choose a raw or MJPEG format with --pixel-format to zoom)"
            return frame
        }
        let crop = ZoomCrop.rect(factor: ramp.factor(at: instant), centre: ramp.centre(at: instant),
                                 width: source.width, height: source.height)
        if crop.width == source.width && crop.height == source.height, case .picture = frame.payload { return frame }
        let target = picturePool(width: source.width, height: source.height).take()
        target.update { scaler.scale(source, crop: crop, into: &$0) }
        var zoomed = frame
        zoomed.payload = .picture(target)
        return zoomed
    }

    private func picturePool(width: Int, height: Int) -> PicturePool {
        if let pool, pool.width == width, pool.height == height { return pool }
        // As many as a recording holds at once: the queue's, one encoded, one scaled.
        let made = PicturePool(width: width, height: height,
                               limit: RecordingPipeline.pacedQueueCapacity(width: width, height: height, rate: rate) + 2,
                               strideAlignment: SwsScaler.strideAlignment)
        pool = made
        return made
    }

    private func decode(_ bytes: [UInt8], at instant: Int64) -> YUV420Image? {
        do {
            if jpegDecoder == nil {
                jpegDecoder = try VideoDecoder(parameters: CodecParameters(codecName: "mjpeg", width: 0, height: 0, pixelFormat: nil))
            }
            let packet = EncodedPacket(data: bytes, ptsNanoseconds: instant, dtsNanoseconds: instant, durationNanoseconds: 0,
                                       isKeyframe: true)
            return try jpegDecoder!.decode(packet).last?.image
        } catch {
            jpegDecoder = nil  // a corrupt picture passes as it is; the next starts afresh
            return nil
        }
    }
}
