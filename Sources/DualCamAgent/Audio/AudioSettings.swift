import Foundation

/// How a node records sound; agent-side, like the camera: each node has its own
/// microphone, and the coordinator only ever mutes it.
public struct AudioSettings: Sendable, Equatable {
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// No sound track at all (video only).
        case none
        /// The DCTC audio companion: a 1 kHz burst at each whole second (TIMECODE.md).
        case synthetic
        /// An ALSA capture PCM, e.g. "default", "hw:CARD=Device,DEV=0", "plughw:1,0".
        case alsa(device: String)
        /// A sound file played as the microphone, its first sample at T0 (`FileAudioSource`).
        case file(path: String)

        public var description: String {
            switch self {
            case .none: "none"
            case .synthetic: "synthetic"
            case .alsa(let device): "ALSA \(device)"
            case .file(let path): "file \(path)"
            }
        }
    }

    public var source: Source
    /// The card's rate, 48000 or 44100; the track is 48 kHz either way (`AudioTrack`).
    public var sampleRate: Int
    /// 1 or 2.
    public var channels: Int
    /// Capture sample size, 16 or 24 (the pipeline itself runs in Float).
    public var bits: Int
    /// −12…+12 dB applied before metering and encoding.
    public var gainDB: Double
    /// AAC bitrate per node.
    public var bitRate: Int
    /// Synthetic sound and sound files: the simulated sound card's rate error against the
    /// node's clock, to exercise drift correction.
    public var simulatedRatePPM: Double
    /// An uncompressed copy of the sound rides in the segments (SMPTE 302M, 48 kHz
    /// only), from which the coordinator writes the node's WAV for editors.
    public var lossless = true

    public init(source: Source = .none, sampleRate: Int = 48_000, channels: Int = 1, bits: Int = 16,
                gainDB: Double = 0, bitRate: Int = 128_000, simulatedRatePPM: Double = 0) {
        self.source = source
        self.sampleRate = sampleRate
        self.channels = channels
        self.bits = bits
        self.gainDB = gainDB
        self.bitRate = bitRate
        self.simulatedRatePPM = simulatedRatePPM
    }

    public var isEnabled: Bool { source != .none }

    /// What is wrong with these settings, in words that say what to do.
    public var problem: String? {
        if sampleRate != 48_000 && sampleRate != 44_100 { return "audio rate must be 48000 or 44100 Hz" }
        if channels != 1 && channels != 2 { return "audio channels must be 1 (mono) or 2 (stereo)" }
        if bits != 16 && bits != 24 { return "audio sample size must be 16 or 24 bits" }
        if !(-12...12).contains(gainDB) { return "gain must be between -12 and +12 dB" }
        return nil
    }

    /// Why the sound file at `path` cannot be the microphone, in words that say what to
    /// do; nil when it opens and has sound this FFmpeg decodes.
    public static func fileProblem(path: String) -> String? { FileAudioSource.problem(path: path) }

    public var summary: String {
        guard isEnabled else { return "no audio" }
        let gain = gainDB == 0 ? "" : String(format: ", gain %+.1f dB", gainDB)
        return "\(source) \(sampleRate) Hz \(channels == 1 ? "mono" : "stereo") \(bits)-bit\(gain)"
    }
}
