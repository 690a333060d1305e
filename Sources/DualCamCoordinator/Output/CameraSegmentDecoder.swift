import DualCamMedia
import Foundation

/// One camera's decoders in the live composite. Each camera's segments are decoded in
/// order by one worker at a time while the other cameras' are decoded beside it
/// (`decodeConcurrently`): with many cameras the decoding, not the composite's encode, is
/// most of the composite's work, and on one thread it kept a rig of 8 cameras finishing
/// seconds after the stop (issue 19).
final class CameraSegmentDecoder: @unchecked Sendable {
    // Invariant: used by one thread at a time: `decodeConcurrently` gives all of a
    // camera's segments to one worker, and the compose queue waits for every worker.
    private var video: VideoDecoder?
    private var audio: AudioDecoder?

    struct Decoded {
        var frames: [DecodedFrame] = []
        var sound: [DecodedAudio] = []
        /// Set on the camera's first segment with sound: the composite's mix opens then.
        var soundOpened: (sampleRate: Int, channels: Int)?
    }

    func decode(segment path: String) throws -> Decoded {
        let demuxer = try MediaDemuxer(path: path)
        if video == nil { video = try VideoDecoder(parameters: demuxer.videoParameters) }
        guard let video else { preconditionFailure("set above") }
        var out = Decoded()
        if audio == nil, let parameters = demuxer.audioParameters {
            audio = try AudioDecoder(parameters: parameters)
            out.soundOpened = (parameters.sampleRate, parameters.channels)
        }
        while let packet = try demuxer.nextPacket() {
            switch packet {
            case .video(let encoded): out.frames += try video.decode(encoded)
            case .audio(let encoded): out.sound += try audio?.decode(encoded) ?? []
            case .lossless: continue
            }
        }
        // Segments end on frame boundaries: the decoder holds nothing back with no
        // B-frames, so nothing is flushed here and the next segment continues.
        return out
    }

    func flush() throws -> [DecodedFrame] {
        try video?.flush() ?? []
    }

    /// Decodes `work` (camera, segment path) in parallel across cameras, each camera's
    /// segments in their order; results in the order of `work`.
    static func decodeConcurrently(_ work: [(camera: Int, path: String)], decoders: [CameraSegmentDecoder])
        -> [Result<Decoded, Error>] {
        let byCamera = Dictionary(grouping: work.indices, by: { work[$0].camera }).values.map { $0.sorted() }
        let results = Results(count: work.count)
        DispatchQueue.concurrentPerform(iterations: byCamera.count) { group in
            for i in byCamera[group] {
                results.set(i, Result { try decoders[work[i].camera].decode(segment: work[i].path) })
            }
        }
        return results.all
    }

    /// The workers' results, each written once by one worker.
    private final class Results: @unchecked Sendable {
        // Invariant: `slots` is touched only under `lock`.
        private let lock = NSLock()
        private var slots: [Result<Decoded, Error>?]

        init(count: Int) { slots = Array(repeating: nil, count: count) }

        func set(_ i: Int, _ result: Result<Decoded, Error>) { lock.withLock { slots[i] = result } }

        var all: [Result<Decoded, Error>] {
            lock.withLock { slots.map { $0 ?? .failure(CoordinatorError("segment not decoded")) } }
        }
    }
}
