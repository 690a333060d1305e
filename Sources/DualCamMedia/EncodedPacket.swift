/// One compressed video access unit. From VideoEncoder and from TS segments, H.264/H.265
/// `data` is Annex B (start codes) and every keyframe carries its parameter sets in-band,
/// so a packet sequence starting at a keyframe decodes on its own. From an MP4 file it is
/// as MP4 stores it (length-prefixed, parameter sets in the demuxer's extradata).
public struct EncodedPacket: Sendable, Equatable {
    public var data: [UInt8]
    public var ptsNanoseconds: Int64
    public var dtsNanoseconds: Int64
    public var durationNanoseconds: Int64
    public var isKeyframe: Bool

    public init(data: [UInt8], ptsNanoseconds: Int64, dtsNanoseconds: Int64,
                durationNanoseconds: Int64, isKeyframe: Bool) {
        self.data = data
        self.ptsNanoseconds = ptsNanoseconds
        self.dtsNanoseconds = dtsNanoseconds
        self.durationNanoseconds = durationNanoseconds
        self.isKeyframe = isKeyframe
    }
}
