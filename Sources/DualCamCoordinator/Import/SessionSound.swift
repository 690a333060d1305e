import DualCamCore
import DualCamMedia
import Foundation

/// The take's own sound, every camera's summed, at the alignment's rate with sample 0 at
/// T0: what an imported file is placed against. The uncompressed copies beside the files
/// first; a camera recorded without one (`--no-lossless-audio`) by its file's sound,
/// placed by its timestamps.
enum SessionSound {
    static func reference(session: SessionFolder, manifest: SessionManifest) throws -> [Float] {
        let rate = SoundAlignment.rate
        var sum: [Float] = []
        func add(_ samples: [Float], at start: Int) {
            guard start + samples.count > 0 else { return }
            if sum.count < start + samples.count { sum += [Float](repeating: 0, count: start + samples.count - sum.count) }
            for (i, v) in samples.enumerated() where start + i >= 0 { sum[start + i] += v }
        }
        for camera in manifest.cameras {
            if let wav = camera.soundFile, FileManager.default.fileExists(atPath: session.path + "/" + wav) {
                add(try SoundFileReader(path: session.path + "/" + wav, sampleRate: rate, channels: 1).readAll(), at: 0)
            } else if let track = try AudioTrackReader.read(path: session.path + "/" + camera.file) {
                let resampler = try AudioResampler(inputRate: track.sampleRate, outputRate: rate, channels: 1)
                let mono = track.mono
                let out = try resampler.convert(mono, outputCount: mono.count * rate / track.sampleRate)
                add(out, at: Int(track.startNanoseconds * Int64(rate) / 1_000_000_000))
            }
        }
        return sum
    }
}
