import DualCamMedia

/// One camera file's sound for `recompose`, decoded as far as the pictures have got, so
/// that the mix never holds more than a second or two of it in memory.
final class CameraAudioFeed {
    let parameters: AudioParameters?
    private let demuxer: MediaDemuxer?
    private let decoder: AudioDecoder?
    private var decodedUntil: Int64 = .min
    private var ended = false

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
