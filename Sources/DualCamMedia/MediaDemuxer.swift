import CFFmpeg

/// Reads the video packets of a media file (TS segment, MP4, ...) with nanosecond
/// timestamps. Not thread-safe.
public final class MediaDemuxer {
    public let path: String
    public let videoParameters: CodecParameters
    private let input: InputFormatContext
    private let packet: Packet

    public init(path: String) throws {
        self.path = path
        input = try InputFormatContext(path: path)
        videoParameters = input.videoParameters
        packet = try Packet()
    }

    /// The next video packet in file order, nil at end of file. Timestamps are the
    /// stored ticks rescaled to nanoseconds (rounded to nearest); a missing dts becomes
    /// the pts and a missing duration one nominal frame.
    public func nextVideoPacket() throws -> EncodedPacket? {
        guard try input.readVideoPacket(into: packet) else { return nil }
        defer { packet.unref() }
        let base = input.videoTimeBase
        let p = packet.pointer.pointee
        let nopts = dc_nopts_value()
        let rawPts = p.pts != nopts ? p.pts : p.dts
        guard rawPts != nopts else {
            throw FFmpegError(code: dc_averror_invaliddata(), call: "MediaDemuxer.nextVideoPacket", path: path,
                              detail: "packet without timestamps")
        }
        let pts = Timestamps.nanoseconds(rawPts, in: base)
        let dts = p.dts != nopts ? Timestamps.nanoseconds(p.dts, in: base) : pts
        var duration = p.duration > 0 ? Timestamps.nanoseconds(p.duration, in: base) : 0
        if duration == 0, let rate = videoParameters.frameRate { duration = rate.periodNanoseconds }
        return EncodedPacket(data: packet.bytes, ptsNanoseconds: pts, dtsNanoseconds: dts,
                             durationNanoseconds: duration, isKeyframe: packet.isKeyframe)
    }
}
