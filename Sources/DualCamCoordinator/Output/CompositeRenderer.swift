import DualCamCore
import DualCamMedia

/// Frames in, combined file out: the core's pairer puts the cameras' frames on the
/// output grid, the compositor lays out each tick with the spec the layout timeline
/// gives for it, the filter grades it, and the encoder writes it. Live composition and
/// `recompose` both go through here, so a re-render is the same picture as the live one.
final class CompositeRenderer {
    let outputPath: String
    private let rate: FrameRate
    private var pairer: FramePairer<YUV420Image>
    private let compositor: Compositor
    private let filter: Filter
    private let writer: MP4VideoWriter
    var timeline: LayoutTimeline
    private(set) var framesComposed = 0

    init(outputPath: String, streamCount: Int, width: Int, height: Int, rate: FrameRate,
         latencyWindowNanoseconds: Int64, timeline: LayoutTimeline, filter: Filter,
         encoder: VideoEncoderSettings, creationTime: Int64) throws {
        self.outputPath = outputPath
        self.rate = rate
        // A camera silent for longer than a second is shown repeating, then as "no signal".
        pairer = FramePairer(streamCount: streamCount, rate: rate, latencyWindowNanoseconds: latencyWindowNanoseconds,
                             repeatLimit: Int(rate.numerator / rate.denominator))
        compositor = Compositor(outputWidth: width, outputHeight: height, scaler: SwsScaler())
        compositor.spec = timeline.initial
        self.timeline = timeline
        self.filter = filter
        writer = try MP4VideoWriter(outputPath: outputPath, settings: encoder, creationTimeUnixSeconds: creationTime)
    }

    func push(stream: Int, frame: DecodedFrame) {
        pairer.push(stream: stream, presentationNanoseconds: frame.ptsNanoseconds, payload: frame.image)
    }

    /// Composes and writes every tick the pairer can release now.
    func composeReady() throws {
        for tick in pairer.drainReady() {
            let instant = rate.instant(ofFrame: tick.index)
            compositor.spec = timeline.spec(at: instant)
            var picture = compositor.compose(tick.frames.map(\.payload))
            if !filter.isIdentity { filter.apply(to: &picture) }
            try writer.write(picture, ptsNanoseconds: instant)
            framesComposed += 1
        }
    }

    /// Composes the rest up to `endPresentationNanoseconds` (nil: the last frame) and
    /// closes the file.
    func finish(endPresentationNanoseconds: Int64?) throws -> PairingStatistics {
        pairer.finishAll(endPresentationNanoseconds: endPresentationNanoseconds)
        try composeReady()
        try writer.finish()
        return pairer.statistics
    }
}
