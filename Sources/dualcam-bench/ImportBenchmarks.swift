import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation

/// `dualcam-bench import [--minutes M] [--accuracy-minutes A]`: how well and how fast a
/// recorder's file is placed by its sound, through the same path `import` takes (the
/// files written as WAVs, read back and resampled by libswresample, aligned by the core).
/// The talk is simulated (SyntheticTalk), so every file's true offset and drift are known.
///   accuracy: A-minute files (default 10) against a take 1.2·A long: offsets −5 to +5 s,
///             ±150 ppm, 44.1 kHz, noise 30 dB down and reverb, a copy missing its first
///             and last fifth; an unrelated talk must be refused.
///   speed:    an M-minute (default 60) 48 kHz stereo file against an M-minute take: wall
///             and CPU seconds, beside the ffmpeg CLI only decoding the same file.
func runImportBenchmarks(arguments: [String]) throws {
    func value(_ name: String, _ fallback: Double) -> Double {
        arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Double(arguments[$0 + 1]) : nil } ?? fallback
    }
    let minutes = value("--minutes", 60), accuracyMinutes = value("--accuracy-minutes", 10)
    let folder = NSTemporaryDirectory() + "dualcam-bench-import-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    MediaLog.setQuiet()

    print("== import: alignment accuracy, \(Int(accuracyMinutes))-minute files (offset error at the file's first and last sample, drift error)")
    let takeSeconds = accuracyMinutes * 60 * 1.2
    let talk = SyntheticTalk(from: -30, to: takeSeconds + 60, seed: 41)
    let reference = folder + "/take.wav"
    try writeWAV(reference, talk: talk, start: 0, seconds: takeSeconds, rate: 48_000, channels: 1)
    let take = try readAt8k(reference)
    struct Case { var label: String; var offset: Double; var drift: Double; var rate: Int; var seconds: Double; var noisy: Bool }
    let file = accuracyMinutes * 60
    let cases = [
        Case(label: "starts 5 s before T0, −150 ppm", offset: -5, drift: -150, rate: 48_000, seconds: file, noisy: false),
        Case(label: "starts 5 s in, +150 ppm, 44.1 kHz", offset: 5, drift: 150, rate: 44_100, seconds: file, noisy: false),
        Case(label: "+73 ppm, noise −30 dB, reverb", offset: 2.3, drift: 73, rate: 48_000, seconds: file, noisy: true),
        Case(label: "first and last 20 % missing, +100 ppm", offset: takeSeconds * 0.2, drift: 100, rate: 44_100,
             seconds: takeSeconds * 0.6, noisy: false),
    ]
    var worstOffset = 0.0, worstDrift = 0.0
    for c in cases {
        let path = folder + "/case.wav"
        var samples = talk.render(start: c.offset, count: Int(c.seconds * Double(c.rate)), rate: c.rate, driftPPM: c.drift)
        if c.noisy { samples = SyntheticTalk.noisy(SyntheticTalk.reverberate(samples), dB: -30, seed: 5) }
        try write(samples, to: path, rate: c.rate, channels: 1)
        let started = Date()
        let result = try SoundAlignment.align(reference: take, file: try readAt8k(path))
        let seconds = Date().timeIntervalSince(started)
        let first = result.pieces.first!, last = result.pieces.last!
        let startError = (first.sessionTime(fileSeconds: 0) - c.offset) * 1000
        let endError = (last.sessionTime(fileSeconds: c.seconds) - (c.offset + c.seconds / (1 + c.drift * 1e-6))) * 1000
        let driftError = result.driftPPM - c.drift
        worstOffset = max(worstOffset, abs(startError), abs(endError))
        worstDrift = max(worstDrift, abs(driftError))
        print(String(format: "  %@: start %+.3f ms, end %+.3f ms, drift %+.2f ppm, confidence %.0f %%, %.1f s",
                     c.label as NSString, startError, endError, driftError, result.confidence * 100, seconds))
    }
    print(String(format: "  worst: offset %.3f ms (goal ≤ 0.5), drift %.2f ppm (goal ≤ 2)", worstOffset, worstDrift))
    let unrelated = folder + "/unrelated.wav"
    try writeWAV(unrelated, talk: SyntheticTalk(from: 0, to: 400, seed: 977), start: 0, seconds: 300, rate: 48_000, channels: 1)
    do {
        _ = try SoundAlignment.align(reference: take, file: try readAt8k(unrelated))
        print("  an unrelated talk: PLACED (it should have been refused)")
    } catch {
        print("  an unrelated talk: refused (\(error))")
    }

    print("== import: speed, a \(Int(minutes))-minute 48 kHz stereo file against a \(Int(minutes))-minute take")
    let long = SyntheticTalk(from: -30, to: minutes * 60 + 30, seed: 43)
    let longTake = folder + "/long-take.wav", longFile = folder + "/long-file.wav"
    try writeWAV(longTake, talk: long, start: 0, seconds: minutes * 60, rate: 48_000, channels: 1)
    try writeWAV(longFile, talk: long, start: 3.7, seconds: minutes * 60 - 10, rate: 48_000, channels: 2, drift: 61)
    let cpu0 = processCPUSeconds(), wall0 = Date()
    let result = try SoundAlignment.align(reference: try readAt8k(longTake), file: try readAt8k(longFile))
    let wall = Date().timeIntervalSince(wall0), cpu = processCPUSeconds() - cpu0
    print(String(format: "  ours: %.1f s wall, %.1f s CPU (decode both, resample to 8 kHz, align); placed at %+.4f s, %+.2f ppm (made 3.7000 s, +61 ppm); goal ≤ 20 s",
                 wall, cpu, result.offsetSeconds, result.driftPPM))
    let peer = Date()
    let ffmpeg = Process()
    ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    ffmpeg.arguments = ["-v", "error", "-i", longFile, "-ac", "1", "-ar", "8000", "-f", "null", "-"]
    try ffmpeg.run()
    ffmpeg.waitUntilExit()
    print(String(format: "  peer: ffmpeg CLI decoding and resampling the file alone: %.1f s wall", Date().timeIntervalSince(peer)))
}

private func readAt8k(_ path: String) throws -> [Float] {
    try SoundFileReader(path: path, sampleRate: SoundAlignment.rate, channels: 1).readAll()
}

/// The talk as a recorder at `rate` heard it, written a minute at a time.
private func writeWAV(_ path: String, talk: SyntheticTalk, start: Double, seconds: Double, rate: Int, channels: Int,
                      drift: Double = 0) throws {
    let writer = try WAVWriter(path: path, sampleRate: rate, channels: channels, bits: 16)
    let perSecond = Double(rate) * (1 + drift * 1e-6)
    var done = 0
    let total = Int(seconds * Double(rate))
    while done < total {
        let count = min(rate * 60, total - done)
        let mono = talk.render(start: start + Double(done) / perSecond, count: count, rate: rate, driftPPM: drift)
        var interleaved = [Float](repeating: 0, count: count * channels)
        for i in 0..<count { for ch in 0..<channels { interleaved[i * channels + ch] = mono[i] } }
        try writer.write(interleaved, sourceChannels: channels, atPosition: Int64(done))
        done += count
    }
    try writer.finish()
}

private func write(_ samples: [Float], to path: String, rate: Int, channels: Int) throws {
    let writer = try WAVWriter(path: path, sampleRate: rate, channels: channels, bits: 16)
    try writer.write(samples, sourceChannels: channels, atPosition: 0)
    try writer.finish()
}
