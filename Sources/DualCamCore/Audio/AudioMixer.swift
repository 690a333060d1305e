/// The combined file's sound: each camera's samples placed by their position on the
/// session's sample grid (position 0 is T0), summed with a gain per camera. A camera
/// with nothing at a position (not arrived, lost, muted) adds silence there, so the mix
/// never waits forever and never shifts one voice against another.
public struct AudioMixer: Sendable {
    public let channels: Int
    public var gains: [Float]
    /// Per camera: interleaved samples (`channels` wide) from `bufferStart` on.
    private var buffers: [[Float]]
    private var bufferStart: Int64 = 0
    /// Output position: everything before it has been mixed and handed out.
    public private(set) var position: Int64 = 0
    /// Sums beyond full scale are clipped, unless a limiter follows that keeps the peaks
    /// (and would only hear the clipping's distortion).
    public var clips = true

    public init(streamCount: Int, channels: Int, gains: [Float]) {
        precondition(gains.count == streamCount, "one gain per stream")
        self.channels = channels
        self.gains = gains
        buffers = Array(repeating: [], count: streamCount)
    }

    /// Adds a camera's samples (interleaved, `sourceChannels` wide) starting at sample
    /// `startPosition`. Mono is spread to every output channel; stereo into mono is
    /// averaged. Samples before the mixed position are too late and are ignored.
    public mutating func push(stream: Int, startPosition: Int64, samples: [Float], sourceChannels: Int) {
        let frames = samples.count / max(sourceChannels, 1)
        var first = 0
        if startPosition < position { first = Int(position - startPosition) }
        guard first < frames else { return }
        let offset = Int(startPosition + Int64(first) - bufferStart) * channels
        let needed = offset + (frames - first) * channels
        if buffers[stream].count < needed {
            buffers[stream] += [Float](repeating: 0, count: needed - buffers[stream].count)
        }
        for i in first..<frames {
            let at = offset + (i - first) * channels
            if sourceChannels == channels {
                for ch in 0..<channels { buffers[stream][at + ch] = samples[i * sourceChannels + ch] }
            } else if sourceChannels == 1 {
                for ch in 0..<channels { buffers[stream][at + ch] = samples[i] }
            } else {
                var sum: Float = 0
                for ch in 0..<sourceChannels { sum += samples[i * sourceChannels + ch] }
                let value = sum / Float(sourceChannels)
                for ch in 0..<channels { buffers[stream][at + ch] = value }
            }
        }
    }

    /// Mixes from the current position up to (not including) `end` and moves past it.
    /// Sums beyond full scale are clipped.
    public mutating func mix(upTo end: Int64) -> [Float] {
        guard end > position else { return [] }
        let count = Int(end - position) * channels
        let from = Int(position - bufferStart) * channels
        var out = [Float](repeating: 0, count: count)
        for (stream, buffer) in buffers.enumerated() {
            let gain = gains[stream]
            guard gain != 0 else { continue }
            let available = min(count, max(0, buffer.count - from))
            for i in 0..<available { out[i] += buffer[from + i] * gain }
        }
        if clips { for i in out.indices { out[i] = max(-1, min(1, out[i])) } }
        position = end
        // Drop what is mixed; cheap enough at a few segments' worth per call.
        let consumed = Int(position - bufferStart) * channels
        for s in buffers.indices { buffers[s].removeFirst(min(consumed, buffers[s].count)) }
        bufferStart = position
        return out
    }

    /// The furthest position every camera still awaited has delivered up to; the mix
    /// can run to here without a voice missing.
    public func deliveredPosition(awaiting streams: [Int]) -> Int64 {
        streams.map { bufferStart + Int64(buffers[$0].count / channels) }.min() ?? bufferStart
    }

    /// Where the mix may run to while the pictures are composed up to `pictures` (a
    /// sample position): as far as every camera still awaited has delivered, up to the
    /// pictures, and never more than `maxLag` behind them (a camera further behind is
    /// heard as silence there). With no camera awaited, `maxLag` behind.
    public func horizon(pictures: Int64, maxLag: Int64, awaiting streams: [Int]) -> Int64 {
        let lagged = pictures - maxLag
        guard !streams.isEmpty else { return lagged }
        return max(lagged, min(pictures, deliveredPosition(awaiting: streams)))
    }
}
