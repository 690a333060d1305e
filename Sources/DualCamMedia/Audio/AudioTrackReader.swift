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
    /// The sound between `from` and `to` (file time, ns), exactly: sample 0 is at `from`,
    /// and anything the file lacks in between is silence. Only packets near the window
    /// are decoded, so a window of a long file costs little. Nil for a file without sound.
    public static func read(path: String, fromNanoseconds from: Int64, toNanoseconds to: Int64) throws -> DecodedTrack? {
        // AAC decodes a packet from its overlap with the one before: start a little early.
        guard var track = try read(path: path, window: (from - 100_000_000)...to) else { return nil }
        let rate = Int64(track.sampleRate)
        let skip = Int((from - track.startNanoseconds) * rate / 1_000_000_000) * track.channels
        let wanted = Int((to - from) * rate / 1_000_000_000) * track.channels
        var samples = [Float](repeating: 0, count: wanted)
        for i in 0..<wanted where skip + i >= 0 && skip + i < track.samples.count { samples[i] = track.samples[skip + i] }
        track.samples = samples
        track.startNanoseconds = from
        return track
    }

    /// The whole sound track of the file at `path`; nil when it has none.
    public static func read(path: String) throws -> DecodedTrack? {
        try read(path: path, window: nil)
    }

    private static func read(path: String, window: ClosedRange<Int64>?) throws -> DecodedTrack? {
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
            if let window, !window.contains(encoded.ptsNanoseconds) { continue }
            for chunk in try decoder.decode(encoded) { place(chunk) }
        }
        for chunk in try decoder.flush() { place(chunk) }
        return track
    }
}
