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
    private var decoders: [VideoDecoder?]
    private let renderer: CompositeRenderer
    private var error: String?

    init(outputPath: String, streamCount: Int, plan: SessionPlan, creationTime: Int64) throws {
        self.outputPath = outputPath
        decoders = Array(repeating: nil, count: streamCount)
        let framesPerSegment = Int(Int64(plan.segmentMilliseconds) * plan.rate.numerator / (1000 * plan.rate.denominator))
        // A tick waits for every camera up to two segments plus upload slack.
        renderer = try CompositeRenderer(
            outputPath: outputPath, streamCount: streamCount, width: plan.width, height: plan.height, rate: plan.rate,
            latencyWindowNanoseconds: Int64(plan.segmentMilliseconds) * 2_000_000 + 2_000_000_000,
            timeline: LayoutTimeline(initial: plan.layout), filter: plan.filter,
            encoder: VideoEncoderSettings(encoder: plan.encoder, width: plan.width, height: plan.height, rate: plan.rate,
                                          preset: plan.preset, tune: "zerolatency", crf: plan.crf, bitrate: nil,
                                          gopFrames: max(framesPerSegment, 1), threads: 0),
            creationTime: creationTime)
    }

    func add(segment path: String, index: Int, stream: Int) {
        queue.async { [self] in
            guard error == nil else { return }
            do {
                let demuxer = try MediaDemuxer(path: path)
                if decoders[stream] == nil { decoders[stream] = try VideoDecoder(parameters: demuxer.videoParameters) }
                guard let decoder = decoders[stream] else { return }
                while let packet = try demuxer.nextVideoPacket() {
                    for frame in try decoder.decode(packet) { renderer.push(stream: stream, frame: frame) }
                }
                // Segments end on frame boundaries: the decoder holds nothing back with
                // no B-frames, so nothing is flushed here and the next segment continues.
                try renderer.composeReady()
            } catch {
                self.error = "composing segment \(index) of camera \(stream + 1): \(error)"
            }
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
                        for frame in try decoders[i]?.flush() ?? [] { renderer.push(stream: i, frame: frame) }
                    }
                    let statistics = try renderer.finish(endPresentationNanoseconds: endPresentationNanoseconds)
                    done.resume(returning: Outcome(statistics: statistics, warnings: []))
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }
}
