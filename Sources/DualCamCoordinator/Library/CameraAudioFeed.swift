import DualCamMedia

/// A sound `recompose` mixes, decoded as far as the pictures have got, so that the mix
/// never holds more than a second or two of it in memory.
protocol AudioFeed: AnyObject {
    /// Rate and channels; nil for a file without sound.
    var format: (sampleRate: Int, channels: Int)? { get }
    /// The sound decoded next, up to at least `until` (ns on the session's timeline).
    func chunks(until: Int64) throws -> [DecodedAudio]
}

/// One camera file's sound.
final class CameraAudioFeed: AudioFeed {
    let parameters: AudioParameters?
    private let demuxer: MediaDemuxer?
    private let decoder: AudioDecoder?
    private var decodedUntil: Int64 = .min
    private var ended = false

    var format: (sampleRate: Int, channels: Int)? { parameters.map { ($0.sampleRate, $0.channels) } }

    init(path: String) throws {
        let demuxer = try MediaDemuxer(path: path)
        parameters = demuxer.audioParameters
        decoder = try parameters.map { try AudioDecoder(parameters: $0) }
        self.demuxer = parameters == nil ? nil : demuxer
    }

    /// The sound decoded next, up to the first packet at or after `until`.
    func chunks(until: Int64) throws -> [DecodedAudio] {
        guard let demuxer, let decoder, !ended, decodedUntil < until else { return [] }
        var out: [DecodedAudio] = []
        while decodedUntil < until {
            guard let packet = try demuxer.nextPacket() else {
                ended = true
                return out + (try decoder.flush())
            }
            guard case .audio(let encoded) = packet else { continue }
            decodedUntil = encoded.ptsNanoseconds
            out += try decoder.decode(encoded)
        }
        return out
    }
}

/// An imported recorder's aligned sound (`recompose --mix NAME`): a WAV whose first sample
/// is T0, without pictures, read in tenths of a second.
final class ImportSoundFeed: AudioFeed {
    let format: (sampleRate: Int, channels: Int)?
    private let reader: SoundFileReader
    private var position: Int64 = 0

    init(path: String) throws {
        let probe = try SoundFileReader(path: path, sampleRate: 48_000, channels: 1)
        reader = try SoundFileReader(path: path, sampleRate: probe.sourceSampleRate, channels: min(2, probe.sourceChannels))
        format = (reader.sampleRate, reader.channels)
    }

    func chunks(until: Int64) throws -> [DecodedAudio] {
        var out: [DecodedAudio] = []
        let rate = Int64(reader.sampleRate)
        while position * 1_000_000_000 / rate < until {
            let samples = try reader.read(frames: reader.sampleRate / 10)
            if samples.isEmpty { break }
            out.append(DecodedAudio(ptsNanoseconds: position * 1_000_000_000 / rate, samples: samples, channels: reader.channels))
            position += Int64(samples.count / reader.channels)
        }
        return out
    }
}
