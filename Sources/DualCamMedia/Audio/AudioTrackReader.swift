/// A file's sound decoded and laid out on its own timeline, for measuring and mixing
/// after the fact: sample i of `samples` is at `startNanoseconds + i/sampleRate`, gaps
/// between packets left silent so positions stay true.
public struct DecodedTrack: Sendable {
    public var samples: [Float]
    public var channels: Int
    public var sampleRate: Int
    public var startNanoseconds: Int64

    /// Channels averaged: what a cross-correlation or onset detector wants.
    public var mono: [Float] {
        guard channels > 1 else { return samples }
        let frames = samples.count / channels
        var out = [Float](repeating: 0, count: frames)
        for i in 0..<frames {
            var sum: Float = 0
            for ch in 0..<channels { sum += samples[i * channels + ch] }
            out[i] = sum / Float(channels)
        }
        return out
    }
}

public enum AudioTrackReader {
    /// The whole sound track of the file at `path`; nil when it has none.
    public static func read(path: String) throws -> DecodedTrack? {
        let demuxer = try MediaDemuxer(path: path)
        guard let parameters = demuxer.audioParameters else { return nil }
        let decoder = try AudioDecoder(parameters: parameters)
        var track: DecodedTrack?
        func place(_ chunk: DecodedAudio) {
            if track == nil {
                track = DecodedTrack(samples: [], channels: chunk.channels, sampleRate: parameters.sampleRate,
                                     startNanoseconds: chunk.ptsNanoseconds)
            }
            let rate = Int64(parameters.sampleRate)
            let at = Int((chunk.ptsNanoseconds - track!.startNanoseconds) * rate / 1_000_000_000 ) * chunk.channels
            guard at >= 0 else { return }
            if track!.samples.count < at + chunk.samples.count {
                track!.samples += [Float](repeating: 0, count: at + chunk.samples.count - track!.samples.count)
            }
            track!.samples.replaceSubrange(at..<(at + chunk.samples.count), with: chunk.samples)
        }
        while let packet = try demuxer.nextPacket() {
            guard case .audio(let encoded) = packet else { continue }
            for chunk in try decoder.decode(encoded) { place(chunk) }
        }
        for chunk in try decoder.flush() { place(chunk) }
        return track
    }
}
