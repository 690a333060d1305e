import DualCamCore
import DualCamMedia

/// One period of sound, stamped on the agent's local clock like a video frame.
struct CapturedAudio {
    /// Interleaved, −1…1.
    var samples: [Float]
    var localFirstSampleNanoseconds: Int64
    /// Samples were lost just before this period, and the source knows it (an overrun).
    var discontinuity = false
}

/// A microphone or the synthetic companion of the DCTC pattern. `next` blocks until a
/// period is captured.
protocol AudioSource {
    mutating func next() throws -> CapturedAudio
    var sampleRate: Int { get }
    var channels: Int { get }
    var description: String { get }
    /// Times samples were lost because nobody read them in time (overruns).
    var overruns: Int { get }
}

/// The audio companion of DCTC (TIMECODE.md): silence with a 1 kHz burst starting at each
/// whole second of the true clock. Its samples are paced by a simulated sound card that
/// runs off the agent's local clock, `ratePPM` fast, so drift correction has a real
/// error to take out; the burst sits at the true instant of each sample, so a file whose
/// sound is placed right shows burst onsets at DCTC second crossings.
struct SyntheticAudioSource: AudioSource {
    let channels: Int
    static let periodFrames = 1024
    private var card: SimulatedSoundCard

    init(sampleRate: Int, channels: Int, ratePPM: Double, clock: AgentClock, startLocalNanoseconds: Int64) {
        self.channels = channels
        card = SimulatedSoundCard(sampleRate: sampleRate, ratePPM: ratePPM, clock: clock, startLocalNanoseconds: startLocalNanoseconds)
    }

    var sampleRate: Int { card.sampleRate }
    var description: String { "synthetic tone bursts \(sampleRate) Hz" }
    var overruns: Int { 0 }

    mutating func next() throws -> CapturedAudio {
        let count = Self.periodFrames
        let period = card.next(count: count)
        var samples = [Float](repeating: 0, count: count * channels)
        for i in 0..<count {
            let value = ToneBurst.sample(atTrueNanoseconds: period.trueInstant(ofSample: i))
            if value != 0 { for ch in 0..<channels { samples[i * channels + ch] = value } }
        }
        return CapturedAudio(samples: samples, localFirstSampleNanoseconds: period.firstLocal)
    }
}

/// A real microphone through ALSA. The driver stamps on CLOCK_MONOTONIC, which is the
/// agent's local clock when no clock error is simulated (a simulated error applies to the
/// synthetic sources only).
struct MicrophoneSource: AudioSource {
    let capture: ALSACapture
    var sampleRate: Int { capture.sampleRate }
    var channels: Int { capture.channels }
    var overruns: Int { capture.overruns }
    var description: String { "microphone \(capture.device) (\(capture.formatName), \(capture.sampleRate) Hz, \(capture.channels) ch)" }

    init(device: String, settings: AudioSettings) throws {
        capture = try ALSACapture(device: device, sampleRate: settings.sampleRate, channels: settings.channels,
                                  bits: settings.bits)
    }

    mutating func next() throws -> CapturedAudio {
        let chunk = try capture.read()
        return CapturedAudio(samples: chunk.samples, localFirstSampleNanoseconds: chunk.firstSampleNanoseconds,
                             discontinuity: chunk.overrun)
    }
}

/// Whether a node's sound source opens, asked at Prepare: a take whose microphone is
/// missing or busy records its pictures without sound and says so before T0, instead of
/// failing at T0 with nothing recorded.
enum AudioProbe {
    static func problem(_ settings: AudioSettings) -> String? {
        if case .file(let path) = settings.source {
            return FileAudioSource.problem(path: path).map { "no sound: \($0); recording pictures only" }
        }
        guard case .alsa(let device) = settings.source else { return nil }
        do {
            _ = try MicrophoneSource(device: device, settings: settings)
            return nil
        } catch {
            return "no sound: \(error); recording pictures only"
        }
    }
}
