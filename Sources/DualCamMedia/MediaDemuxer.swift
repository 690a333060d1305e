import CFFmpeg

/// Reads the video (and audio) packets of a media file (TS segment, MP4, ...) with
/// nanosecond timestamps. Not thread-safe.
public final class MediaDemuxer {
    public let path: String
    public let videoParameters: CodecParameters
    /// The audio stream's parameters, nil for a file without sound.
    public let audioParameters: AudioParameters?
    /// The uncompressed copy of the sound a segment may carry (SMPTE 302M).
    public let losslessParameters: AudioParameters?
    private let input: InputFormatContext
    private let packet: Packet

    /// `lossless`: also read the uncompressed sound stream a segment may carry.
    public init(path: String, lossless: Bool = false) throws {
        self.path = path
        input = try InputFormatContext(path: path, lossless: lossless)
        videoParameters = input.videoParameters
        audioParameters = input.audioParameters
        losslessParameters = input.losslessParameters
        packet = try Packet()
    }

    public enum Demuxed {
        case video(EncodedPacket)
        case audio(EncodedPacket)
        case lossless(EncodedPacket)
    }

    /// The next video or audio packet in file order, nil at end of file.
    public func nextPacket() throws -> Demuxed? {
        guard let kind = try input.readPacket(into: packet) else { return nil }
        defer { packet.unref() }
        switch kind {
        case .video: return .video(try current(base: input.videoTimeBase, nominal: videoParameters.frameRate?.periodNanoseconds))
        case .audio:
            let audio = audioParameters!
            let frame = Int64(audio.frameSize) * 1_000_000_000 / Int64(max(audio.sampleRate, 1))
            return .audio(try current(base: input.audioStream!.pointee.time_base, nominal: frame))
        case .lossless:
            return .lossless(try current(base: input.losslessStream!.pointee.time_base, nominal: nil))
        }
    }

    /// The next video packet in file order, nil at end of file. Timestamps are the
    /// stored ticks rescaled to nanoseconds (rounded to nearest); a missing dts becomes
    /// the pts and a missing duration one nominal frame.
    public func nextVideoPacket() throws -> EncodedPacket? {
        guard try input.readVideoPacket(into: packet) else { return nil }
        defer { packet.unref() }
        return try current(base: input.videoTimeBase, nominal: videoParameters.frameRate?.periodNanoseconds)
    }

    private func current(base: AVRational, nominal: Int64?) throws -> EncodedPacket {
        let p = packet.pointer.pointee
        let nopts = dc_nopts_value()
        let rawPts = p.pts != nopts ? p.pts : p.dts
        guard rawPts != nopts else {
            throw FFmpegError(code: dc_averror_invaliddata(), call: "MediaDemuxer.read", path: path,
                              detail: "packet without timestamps")
        }
        let pts = Timestamps.nanoseconds(rawPts, in: base)
        let dts = p.dts != nopts ? Timestamps.nanoseconds(p.dts, in: base) : pts
        var duration = p.duration > 0 ? Timestamps.nanoseconds(p.duration, in: base) : 0
        if duration == 0, let nominal { duration = nominal }
        return EncodedPacket(data: packet.bytes, ptsNanoseconds: pts, dtsNanoseconds: dts,
                             durationNanoseconds: duration, isKeyframe: packet.isKeyframe)
    }
}
