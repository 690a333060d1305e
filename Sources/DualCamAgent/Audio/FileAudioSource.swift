import DualCamCore
import DualCamMedia
import Foundation
import Logging

/// A sound file played as the node's microphone (`--audio file:PATH`), so that a demo or
/// a test records a real conversation instead of tone bursts.
///
/// It is paced like the tone bursts, by a simulated card running off the agent's local
/// clock (`--simulate-audio-rate-ppm` off it): periods reach the drift corrector stamped
/// as a card's would be, so the card's rate error and the clock's skew must be taken out
/// as with a real microphone. What each sample holds is the file at that sample's true
/// instant, counted from T0 as this node sees it when the take begins: the file's sample
/// 0 is at T0 on the node's clock, and a node whose clock or sound is handled wrongly
/// shows it as the file's sound displaced in the recording. After the file's end: silence.
struct FileAudioSource: AudioSource {
    let channels: Int
    let path: String
    static let periodFrames = 1024
    private var card: SimulatedSoundCard
    private let reader: SoundFileReader
    /// The true instant of the file's sample 0.
    private let startTrue: Int64
    /// The file's samples (interleaved) from frame `bufferStart` on, as far as read.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    private var fileEnded = false
    private var endLogged = false

    /// `t0Shared`: the take's T0, where the file's first sample goes.
    init(path: String, settings: AudioSettings, clock: AgentClock, startLocalNanoseconds: Int64, t0Shared: SharedInstant) throws {
        self.path = path
        channels = settings.channels
        reader = try SoundFileReader(path: path, sampleRate: settings.sampleRate, channels: settings.channels)
        card = SimulatedSoundCard(sampleRate: settings.sampleRate, ratePPM: settings.simulatedRatePPM, clock: clock,
                                  startLocalNanoseconds: startLocalNanoseconds)
        let t0Local = (clock.estimate?.local(fromShared: t0Shared) ?? clock.now).nanoseconds
        startTrue = clock.simulatedError.trueTime(fromLocal: t0Local)
    }

    var sampleRate: Int { card.sampleRate }
    var overruns: Int { 0 }
    var description: String { "sound file \(path) (\(reader.formatDescription))" }

    mutating func next() throws -> CapturedAudio {
        let count = Self.periodFrames
        let period = card.next(count: count)
        let rate = Double(sampleRate)
        var samples = [Float](repeating: 0, count: count * channels)
        for i in 0..<count {
            // Where in the file this sample falls, in (fractional) frames; a card's rate
            // differs from the file's by parts per million, so the file is read between
            // its samples, linearly: the error is far above speech's frequencies.
            let position = Double(period.trueInstant(ofSample: i) - startTrue) * rate / 1e9
            let frame = position.rounded(.down)
            let k = Int64(frame)
            let weight = Float(position - frame)
            try fill(through: k + 1)
            for ch in 0..<channels {
                samples[i * channels + ch] = (1 - weight) * sample(k, ch) + weight * sample(k + 1, ch)
            }
        }
        let lastPosition = Double(period.trueInstant(ofSample: count - 1) - startTrue) * rate / 1e9
        if fileEnded, !endLogged, Int64(lastPosition) >= bufferEnd {
            endLogged = true
            Logger(label: "dualcam-agent").notice(
                "the sound file \(path) has ended (\(String(format: "%.1f", Double(bufferEnd) / rate)) s): silence from here on")
        }
        // Frames before this period are never read again.
        let firstPosition = Int64((Double(period.trueInstant(ofSample: 0) - startTrue) * rate / 1e9).rounded(.down))
        drop(before: min(firstPosition, bufferEnd))
        return CapturedAudio(samples: samples, localFirstSampleNanoseconds: period.firstLocal)
    }

    private var bufferEnd: Int64 { bufferStart + Int64(buffer.count / channels) }

    /// Frame `k`'s channel `ch`: silence before the file's start and after its end.
    private func sample(_ k: Int64, _ ch: Int) -> Float {
        guard k >= bufferStart, k < bufferEnd else { return 0 }
        return buffer[Int(k - bufferStart) * channels + ch]
    }

    /// Reads the file on until frame `k` is in the buffer, or the file has ended. A take
    /// that begins late (an agent rejoining) skips the frames it has missed.
    private mutating func fill(through k: Int64) throws {
        while !fileEnded, bufferEnd <= k {
            let block = try reader.read(frames: 4096)
            if block.count < 4096 * channels { fileEnded = true }
            buffer += block
            if k - bufferStart > 96_000 { drop(before: k - 2) }
        }
    }

    private mutating func drop(before frame: Int64) {
        let count = Int(min(max(0, frame - bufferStart), Int64(buffer.count / channels)))
        guard count > 0 else { return }
        buffer.removeFirst(count * channels)
        bufferStart += Int64(count)
    }

    /// What stops the file from playing, in words that say what to do; nil when it opens
    /// and has sound a decoder here can read.
    static func problem(path: String) -> String? {
        SoundFileReader.problem(path: path).map {
            "--audio file:\(path): \($0); give a sound file FFmpeg can decode (WAV, FLAC, MP3, Ogg, ...) by its full path"
        }
    }
}
