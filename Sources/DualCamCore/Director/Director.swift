/// The director: every node's sound in, cuts out. Feed each camera's decoded sound by
/// its position on the take's sample grid (sample 0 is T0), then `advance` to a
/// position: the sound before it is analysed in 10 ms blocks (a camera with nothing there
/// is silence, as in the mix) and the cuts those blocks decide come back, each at the end
/// of the block that decided it.
///
/// Causal and deterministic: a cut depends only on the sound before it, so the live
/// composite and a later `recompose --director` on the same sound cut on the same frames.
public struct Director: Sendable {
    public let people: Int
    public let sampleRate: Int
    public let tuning: DirectorTuning
    private let blockSamples: Int
    private var bands: [SpeechBand]
    private var voices: OwnVoice
    private var trackers: [SpeakingTracker]
    private var rules: ShotRules
    /// Per camera: mono samples from `bufferStart` on.
    private var buffers: [[Float]]
    private var bufferStart: Int64 = 0
    private var nextBlock = 0
    /// Per person, at the last block analysed: own voice heard, and in a turn.
    public private(set) var voiced: [Bool]
    public private(set) var speaking: [Bool]
    /// A quarter second, in blocks: how recent a voice must be to be cut to.
    static let recentBlocks = 25

    /// Sample position analysed up to (exclusive).
    public var position: Int64 { Int64(nextBlock) * Int64(blockSamples) }

    public init(people: Int, sampleRate: Int, tuning: DirectorTuning = DirectorTuning()) {
        precondition(people >= 1 && sampleRate >= 8000, "a director needs a camera and a sample rate")
        self.people = people
        self.sampleRate = sampleRate
        self.tuning = tuning
        blockSamples = Int((Double(sampleRate) * DirectorTuning.blockSeconds).rounded())
        bands = Array(repeating: SpeechBand(sampleRate: sampleRate), count: people)
        voices = OwnVoice(people: people)
        let blocks = { (seconds: Double) in Int((seconds / DirectorTuning.blockSeconds).rounded()) }
        trackers = Array(repeating: SpeakingTracker(hangoverBlocks: blocks(DirectorTuning.hangover),
                                                    switchBlocks: blocks(tuning.switchDelay)), count: people)
        rules = ShotRules(people: people, tuning: tuning)
        buffers = Array(repeating: [], count: people)
        voiced = Array(repeating: false, count: people)
        speaking = Array(repeating: false, count: people)
    }

    /// What is on air now.
    public var shot: Shot { rules.onAir }

    /// A camera's sound (interleaved, `channels` wide, averaged to mono) from sample
    /// `startPosition` on. Sound before the analysed position is too late and ignored.
    public mutating func push(stream: Int, startPosition: Int64, samples: [Float], channels: Int) {
        let channels = max(channels, 1)
        let frames = samples.count / channels
        let first = startPosition < position ? Int(position - startPosition) : 0
        guard stream < people, first < frames else { return }
        let offset = Int(startPosition + Int64(first) - bufferStart)
        if buffers[stream].count < offset + frames - first {
            buffers[stream] += [Float](repeating: 0, count: offset + frames - first - buffers[stream].count)
        }
        for i in first..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += samples[i * channels + c] }
            buffers[stream][offset + i - first] = sum / Float(channels)
        }
    }

    /// How far every camera in `streams` has delivered sound: the director can run to
    /// here without taking a late voice for silence.
    public func delivered(by streams: [Int]) -> Int64 {
        streams.map { bufferStart + Int64(buffers[$0].count) }.min() ?? bufferStart
    }

    /// Analyses every whole block before `end`; returns the cuts they decide, in order.
    public mutating func advance(to end: Int64) -> [DirectorCut] {
        var cuts: [DirectorCut] = []
        while position + Int64(blockSamples) <= end {
            let from = Int(position - bufferStart)
            var powers = [Double](repeating: 0, count: people)
            for s in 0..<people {
                let available = buffers[s].count
                let lower = min(from, available), upper = min(from + blockSamples, available)
                var block = Array(buffers[s][lower..<upper])
                if block.count < blockSamples { block += [Float](repeating: 0, count: blockSamples - block.count) }
                powers[s] = bands[s].power(block[...])
            }
            voiced = voices.block(powers: powers)
            for p in 0..<people { trackers[p].block(nextBlock, active: voiced[p]) }
            speaking = trackers.map { $0.speaking(at: nextBlock) }
            let believed = trackers.map { $0.believed(at: nextBlock) }
            let index = nextBlock
            nextBlock += 1
            let recent = trackers.map { index - $0.lastActive <= Self.recentBlocks }
            if let shot = rules.decide(at: index, speaking: speaking, believed: believed, voicedRecently: recent) {
                cuts.append(DirectorCut(atNanoseconds: position * 1_000_000_000 / Int64(sampleRate), shot: shot))
            }
        }
        // Keep only what is not analysed yet.
        let consumed = Int(position - bufferStart)
        for s in buffers.indices { buffers[s].removeFirst(min(consumed, buffers[s].count)) }
        bufferStart = position
        return cuts
    }
}
