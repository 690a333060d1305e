import DualCamCore
import DualCamMedia
import Foundation

/// The combined file's sound made publishable: levelled towards a loudness target
/// (`LoudnessLeveller`, fed by an R128 meter on the mix) and kept under a true-peak
/// ceiling (`TruePeakLimiter`), as it is written. The per-camera files and WAVs are never
/// touched. A second meter reads what goes into the file, for the manifest.
final class ProgrammeSound {
    let targetLUFS: Double
    private let channels: Int
    private let blockFrames: Int
    private let input: LoudnessMeter
    private let output: LoudnessMeter
    private var leveller: LoudnessLeveller
    private var compressor: ProgrammeCompressor
    private var limiter: TruePeakLimiter
    private var partial: [Float] = []
    private var appliedGain: Float = 1
    private var audibleSeconds = 0.0

    /// −1 dBTP is the ceiling the issue asks of the file; the limiter aims 1.5 dB under it
    /// because the AAC encoder overshoots what it is given: −1.5 dBTP going in read −0.6 in
    /// the file of a take (ffmpeg's R128 meter), once the compressor let the gain rise.
    static let ceilingDBTP = -2.5

    init(channels: Int, sampleRate: Int, targetLUFS: Double) throws {
        self.targetLUFS = targetLUFS
        self.channels = channels
        blockFrames = Int(Double(sampleRate) * LoudnessLeveller.blockSeconds)
        input = try LoudnessMeter(channels: channels, sampleRate: sampleRate, context: "the programme mix")
        output = try LoudnessMeter(channels: channels, sampleRate: sampleRate, context: "the combined file's sound")
        leveller = LoudnessLeveller(targetLUFS: targetLUFS)
        // Syllables more than 6 dB over the target's level (as 1 ms mean squares) are
        // compressed: the voice's body stays as it is.
        compressor = ProgrammeCompressor(channels: channels, sampleRate: sampleRate, thresholdDBFS: targetLUFS + 6)
        limiter = TruePeakLimiter(channels: channels, ceiling: Float(pow(10, Self.ceilingDBTP / 20)),
                                  lookahead: sampleRate / 500, releaseFrames: sampleRate / 10)
    }

    /// Takes the mix (interleaved); returns what goes into the file, a little behind it.
    func process(_ mix: [Float]) throws -> [Float] {
        partial += mix
        var out: [Float] = []
        let blockSamples = blockFrames * channels
        while partial.count >= blockSamples {
            let block = Array(partial[..<blockSamples])
            partial.removeFirst(blockSamples)
            out += try level(block)
        }
        return out
    }

    /// The rest, at the end of the file.
    func flush() throws -> [Float] {
        let out = partial.isEmpty ? [] : try level(partial)
        partial.removeAll()
        let tail = limiter.process(compressor.flush()) + limiter.flush()
        try output.add(tail)
        return out + tail
    }

    private func level(_ block: [Float]) throws -> [Float] {
        try input.add(block)
        let shortTerm = try input.shortTerm()
        if let shortTerm, shortTerm > -60 { audibleSeconds += Double(block.count / channels) / Double(blockFrames) * LoudnessLeveller.blockSeconds }
        let gainDB = leveller.block(mixIntegratedLUFS: try input.integrated(), mixShortTermLUFS: shortTerm,
                                    writtenIntegratedLUFS: try output.integrated(), audibleSeconds: audibleSeconds)
        let target = Float(pow(10, gainDB / 20))
        // A ramp across the block from the last gain: no step to hear.
        let frames = block.count / channels
        var ramped = block
        for f in 0..<frames {
            let g = appliedGain + (target - appliedGain) * Float(f + 1) / Float(frames)
            for c in 0..<channels { ramped[f * channels + c] *= g }
        }
        appliedGain = target
        let limited = limiter.process(compressor.process(ramped))
        try output.add(limited)
        return limited
    }

    /// What the manifest says of the file's sound.
    func record() throws -> SessionManifest.Loudness {
        .init(targetLUFS: targetLUFS, integratedLUFS: try output.integrated().map(Self.tenth),
              truePeakDBTP: try output.truePeak().map(Self.tenth), mixIntegratedLUFS: try input.integrated().map(Self.tenth),
              finalGainDB: Self.tenth(leveller.gainDB), framesLimited: limiter.framesLimited)
    }

    private static func tenth(_ x: Double) -> Double { (x * 10).rounded() / 10 }
}

extension SessionManifest {
    /// The combined file's loudness: measured before encoding (R128, libebur128).
    struct Loudness: Codable, Equatable {
        var targetLUFS: Double
        var integratedLUFS: Double?
        var truePeakDBTP: Double?
        /// The mix before levelling.
        var mixIntegratedLUFS: Double?
        var finalGainDB: Double
        var framesLimited: Int
    }
}

/// `--loudness`: the combined file's integrated loudness target.
public enum ProgrammeLoudness {
    /// Podcast and streaming practice; `-23` is EBU R128 broadcast.
    public static let defaultTarget: Double? = -16

    /// `-16`, `-23` (any of −36…−10 LUFS) or `off` (the plain mix, as before levelling).
    public static func parse(_ text: String) throws -> Double? {
        let t = text.lowercased().replacingOccurrences(of: "lufs", with: "").trimmingCharacters(in: .whitespaces)
        if t == "off" || t == "none" { return nil }
        guard let value = Double(t), (-36.0...(-10.0)).contains(value) else {
            throw CoordinatorError("--loudness \(text): expected a target in LUFS from -36 to -10 (-16 for podcasts, -23 for EBU R128 broadcast) or off")
        }
        return value
    }
}
