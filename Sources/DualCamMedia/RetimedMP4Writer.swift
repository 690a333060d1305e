import CFFmpeg

/// Another recorder's video copied picture for picture into an MP4 whose timestamps the
/// caller has mapped onto a session's timeline, with an AAC sound track beside it: the
/// pictures are never decoded, only their times change, so a file of any frame rate
/// (variable included) keeps every picture as it was. Not thread-safe.
public final class RetimedMP4Writer {
    private let output: MP4Output
    private let packet: Packet
    public private(set) var videoPackets = 0

    public init(path: String, video: CodecParameters, audio: AudioParameters?, tags: MP4Tags) throws {
        output = try MP4Output(path: path, tags: tags)
        try output.start(parameters: video, audio: audio)
        packet = try Packet()
    }

    /// A picture at `ptsNanoseconds` on the session's timeline; one whose decode time does
    /// not advance is dropped, as an MP4 cannot hold it.
    public func writeVideo(_ encoded: EncodedPacket) throws {
        try load(encoded, base: output.timeBase)
        if try output.write(packet) { videoPackets += 1 }
    }

    public func writeAudio(_ encoded: EncodedPacket) throws {
        guard let base = output.audioTimeBase else { return }
        try load(encoded, base: base)
        try output.writeAudio(packet)
    }

    public func finish() throws { try output.finish() }

    private func load(_ encoded: EncodedPacket, base: AVRational) throws {
        func ticks(_ nanoseconds: Int64) -> Int64 { Timestamps.rescale(nanoseconds, from: Timestamps.nanosecondBase, to: base) }
        try packet.load(encoded.data, pts: ticks(encoded.ptsNanoseconds), dts: ticks(encoded.dtsNanoseconds),
                        duration: ticks(encoded.durationNanoseconds), keyframe: encoded.isKeyframe)
    }
}
