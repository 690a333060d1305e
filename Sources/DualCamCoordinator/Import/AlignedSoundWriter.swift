import DualCamCore
import DualCamMedia

/// Writes an imported file's sound on the session's timeline: 48 kHz, 24-bit, its first
/// sample at T0. Each piece is resampled from the file's own rate with its drift taken out
/// (libswresample, stretched continuously, never a dropped or repeated sample), placed where
/// the alignment put it; what was recorded before T0 is left out, a pause is silence.
enum AlignedSoundWriter {
    static let rate = 48_000
    static let block = 4096

    /// Returns the seconds of the file that lay before T0.
    static func write(_ source: ImportSource, alignment: SoundAlignmentResult, to path: String,
                      broadcast: BroadcastWave) throws -> Double {
        let channels = source.channels
        let reader = try SoundFileReader(path: source.path, sampleRate: source.sampleRate, channels: channels)
        let writer = try WAVWriter(path: path, sampleRate: rate, channels: channels, bits: 24, broadcast: broadcast)
        var resampler: AudioResampler?
        var piece: SoundAlignmentPiece?
        var pieceStartPosition: Int64 = 0
        var consumed: Int64 = 0
        var before = 0.0
        func position(_ p: SoundAlignmentPiece, _ sample: Int64) -> Int64 {
            Int64((p.sessionTime(fileSeconds: Double(sample) / Double(source.sampleRate)) * Double(rate)).rounded())
        }
        while true {
            let samples = try reader.read(frames: block)
            let frames = samples.count / channels
            if frames == 0 { break }
            let middle = (Double(consumed) + Double(frames) / 2) / Double(source.sampleRate)
            let current = alignment.piece(atFileSeconds: middle)
            if current != piece {
                piece = current
                resampler = try AudioResampler(inputRate: source.sampleRate, outputRate: rate, channels: channels)
                pieceStartPosition = position(current, consumed)
            }
            let count = Int(position(current, consumed + Int64(frames)) - position(current, consumed))
            let at = pieceStartPosition + resampler!.produced
            let out = try resampler!.convert(samples, outputCount: max(count, 0))
            if at < 0 { before += Double(min(-at, Int64(out.count / channels))) / Double(rate) }
            try writer.write(out, sourceChannels: channels, atPosition: at)
            consumed += Int64(frames)
        }
        try writer.finish()
        return before
    }

    /// The aligned copy against the take's sound near its start, middle and end (ms; nil
    /// where either is silent there): what an editor would see as lip sync.
    static func lipSync(alignedPath: String, reference: [Float]) throws -> ImportRecord.LipSync {
        let aligned = try SoundFileReader(path: alignedPath, sampleRate: SoundAlignment.rate, channels: 1).readAll()
        let rate = SoundAlignment.rate
        let first = aligned.firstIndex { $0 != 0 } ?? 0
        let end = min(aligned.count, reference.count)
        let window = min(8 * rate, max(0, end - first) / 3)
        guard window >= rate else { return ImportRecord.LipSync() }
        func measure(_ start: Int) -> Double? {
            guard let offset = AudioCorrelation.offset(reference: Array(reference[start..<(start + window)]),
                                                       other: Array(aligned[start..<(start + window)]),
                                                       sampleRate: rate, maxLagNanoseconds: 20_000_000),
                  offset.confidence >= 0.2 else { return nil }
            return Double(offset.nanoseconds) / 1e6
        }
        return ImportRecord.LipSync(startMs: measure(first), middleMs: measure((first + end - window) / 2),
                                    endMs: measure(end - window))
    }
}
