import DualCamCore
import DualCamMedia
import Foundation

/// Builds one camera's MP4 from its segments as they arrive, in index order, copying
/// packets with their timestamps (never re-encoding), so that at stop only the last
/// segment and the trailer remain to be written.
final class CameraRemux {
    let outputPath: String
    /// The file's tags; its timecode is set from the session's at its first frame.
    private let tags: MP4Tags
    private let sessionTimecode: SMPTETimecode?
    /// The timecode of the file's first frame, once it is known.
    private(set) var startTimecode: SMPTETimecode?
    private var remuxer: MP4Remuxer?
    /// The node's uncompressed sound, beside the MP4, when its segments carry it.
    private var wav: WAVWriter?
    private var losslessDecoder: AudioDecoder?
    private var nextIndex = 0
    private var waiting: [Int: (path: String, first: Int64)] = [:]

    init(outputPath: String, tags: MP4Tags, sessionTimecode: SMPTETimecode?) {
        self.outputPath = outputPath
        self.tags = tags
        self.sessionTimecode = sessionTimecode
    }

    /// `first`: the segment's first presentation time from T0.
    func add(segment path: String, index: Int, first: Int64) throws {
        waiting[index] = (path, first)
        while let next = waiting.removeValue(forKey: nextIndex) {
            try append(next.path, first: next.first)
            nextIndex += 1
        }
    }

    private func append(_ path: String, first: Int64) throws {
        if remuxer == nil {
            let parameters = try MediaDemuxer(path: path).videoParameters
            // The timecode an editor gives the file's first frame: the session's, counted on
            // to that frame, so a late camera's file still reads the session's time.
            var tags = tags
            startTimecode = sessionTimecode?.at(presentationNanoseconds: first)
            tags.timecode = startTimecode?.description
            remuxer = try MP4Remuxer(outputPath: outputPath, parameters: parameters, tags: tags)
        }
        guard let remuxer else { return }
        try remuxer.append(segmentAt: path)
        try appendLossless(from: remuxer)
    }

    /// The WAV's path: the MP4's, with the other extension.
    var soundPath: String { (outputPath as NSString).deletingPathExtension + ".wav" }
    var hasSound: Bool { wav != nil }

    private func appendLossless(from remuxer: MP4Remuxer) throws {
        guard let pcm = remuxer.losslessParameters, !remuxer.losslessPackets.isEmpty else { return }
        if wav == nil {
            // 302M carries mono as a pair: the WAV has as many channels as the node recorded.
            wav = try WAVWriter(path: soundPath, sampleRate: pcm.sampleRate, channels: remuxer.recordedChannels ?? pcm.channels,
                                bits: pcm.bitsPerSample == 24 ? 24 : 16)
            losslessDecoder = try AudioDecoder(parameters: pcm)
        }
        guard let wav, let decoder = losslessDecoder else { return }
        for encoded in remuxer.losslessPackets {
            for chunk in try decoder.decode(encoded) {
                try wav.write(chunk.samples, sourceChannels: chunk.channels,
                              atPosition: chunk.ptsNanoseconds * Int64(wav.sampleRate) / 1_000_000_000)
            }
        }
    }

    /// Indices below the newest one that never arrived. The segments after such a gap
    /// still go into the file at their own times: the gap stays a gap, nothing is faked.
    var missingSegments: [Int] {
        guard let last = waiting.keys.max() else { return [] }
        return (nextIndex..<last).filter { waiting[$0] == nil }
    }

    var hasSegments: Bool { remuxer != nil || !waiting.isEmpty }

    func finish() throws {
        for index in waiting.keys.sorted() { try append(waiting[index]!.path, first: waiting[index]!.first) }
        waiting = [:]
        guard let remuxer else { throw CoordinatorError("no segment arrived for \(outputPath)") }
        try remuxer.finish()
        try wav?.finish()
    }
}
