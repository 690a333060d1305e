import DualCamCore
import DualCamMedia
import Foundation

/// The combined file, composed while the session records: each arriving segment is
/// decoded, its frames go into the core's frame pairer, and every output tick the pairer
/// releases is composited and encoded at once. At stop only the tail remains, so the
/// file is final seconds after the last segment, whatever the session's length.
final class LiveComposer: @unchecked Sendable {
    // Invariant: every stored var below is touched only on `queue`.
    private let queue = DispatchQueue(label: "dualcam.compose")
    let outputPath: String
    private let rate: FrameRate
    private var decoders: [VideoDecoder?]
    private var pairer: FramePairer<YUV420Image>
    private let compositor: Compositor
    private let filter: Filter
    private let writer: MP4VideoWriter
    private var error: String?
    private var framesComposed = 0

    init(outputPath: String, streamCount: Int, plan: SessionPlan, creationTime: Int64) throws {
        self.outputPath = outputPath
        rate = plan.rate
        decoders = Array(repeating: nil, count: streamCount)
        // A tick waits for every camera up to two segments plus upload slack; a camera
        // that is later than that is shown repeating, then as "no signal".
        let window = Int64(plan.segmentMilliseconds) * 2_000_000 + 2_000_000_000
        pairer = FramePairer(streamCount: streamCount, rate: plan.rate, latencyWindowNanoseconds: window,
                             repeatLimit: Int(plan.rate.numerator / plan.rate.denominator))
        compositor = Compositor(outputWidth: plan.width, outputHeight: plan.height, scaler: SwsScaler())
        compositor.spec = plan.layout
        filter = plan.filter
        let framesPerSegment = Int(Int64(plan.segmentMilliseconds) * plan.rate.numerator / (1000 * plan.rate.denominator))
        writer = try MP4VideoWriter(
            outputPath: outputPath,
            settings: VideoEncoderSettings(encoder: plan.encoder, width: plan.width, height: plan.height, rate: plan.rate,
                                           preset: plan.preset, tune: "zerolatency", crf: plan.crf, bitrate: nil,
                                           gopFrames: max(framesPerSegment, 1), threads: 0),
            creationTimeUnixSeconds: creationTime)
    }

    func add(segment path: String, index: Int, stream: Int) {
        queue.async { [self] in
            guard error == nil else { return }
            do {
                let demuxer = try MediaDemuxer(path: path)
                if decoders[stream] == nil { decoders[stream] = try VideoDecoder(parameters: demuxer.videoParameters) }
                guard let decoder = decoders[stream] else { return }
                while let packet = try demuxer.nextVideoPacket() {
                    for frame in try decoder.decode(packet) {
                        pairer.push(stream: stream, presentationNanoseconds: frame.ptsNanoseconds, payload: frame.image)
                    }
                }
                // Segments end on frame boundaries: the decoder holds nothing back with
                // no B-frames, so nothing is flushed here and the next segment continues.
                try composeReady()
            } catch {
                self.error = "composing segment \(index) of camera \(stream + 1): \(error)"
            }
        }
    }

    private func composeReady() throws {
        for tick in pairer.drainReady() {
            var picture = compositor.compose(tick.frames.map(\.payload))
            if !filter.isIdentity { filter.apply(to: &picture) }
            try writer.write(picture, ptsNanoseconds: rate.instant(ofFrame: tick.index))
            framesComposed += 1
        }
    }

    struct Outcome {
        var statistics: PairingStatistics
        var warnings: [String]

        func manifestEntry(file: String, layout: String, filter: String) -> SessionManifest.Composite {
            .init(file: file, layout: layout, filter: filter, ticks: statistics.ticks, pairs: statistics.pairs, repeats: statistics.repeats,
                  noSignal: statistics.noSignal, droppedFrames: statistics.droppedFrames,
                  frameError: .init(statistics.frameError), pairSpread: .init(statistics.pairSpread))
        }
    }

    /// Composes what is left up to `endPresentationNanoseconds` and closes the file.
    func finish(endPresentationNanoseconds: Int64) async throws -> Outcome {
        try await withCheckedThrowingContinuation { done in
            queue.async { [self] in
                do {
                    if let error { throw CoordinatorError(error) }
                    for i in decoders.indices {
                        for frame in try decoders[i]?.flush() ?? [] {
                            pairer.push(stream: i, presentationNanoseconds: frame.ptsNanoseconds, payload: frame.image)
                        }
                    }
                    pairer.finishAll(endPresentationNanoseconds: endPresentationNanoseconds)
                    try composeReady()
                    try writer.finish()
                    done.resume(returning: Outcome(statistics: pairer.statistics, warnings: []))
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }
}
