import CFFmpeg

/// Writes one MPEG-TS segment file from encoded packets: the video stream and, when the
/// node records sound, its AAC audio beside it on the same timeline.
///
/// Timestamps are stored as round(ns * 9 / 100000) in 90 kHz and read back by libavformat
/// unchanged. The TS muxer adds twice `max_delay` to every pts/dts unless `mpegts_copyts`
/// is set; libavformat's default max_delay adds nothing, but the ffmpeg CLI uses 0.7 s
/// and defaults may move, so both are pinned here (max_delay 0, copyts on). Presentation
/// times then stay those of the session timeline, and a segment may start at pts 0.
///
/// The first packet should be a keyframe carrying its parameter sets (VideoEncoder's
/// keyframes do), so the segment decodes on its own. Not thread-safe.
public final class SegmentWriter {
    public let path: String
    private let output: OutputFormatContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let audioStream: UnsafeMutablePointer<AVStream>?
    private let losslessStream: UnsafeMutablePointer<AVStream>?
    private var lastAudioDtsTicks: Int64?
    private var lastLosslessDtsTicks: Int64?
    public private(set) var audioPacketCount = 0
    private let packet: Packet
    private var frameCount = 0
    private var firstPts: Int64?
    private var lastPts: Int64 = 0
    private var lastDuration: Int64 = 0
    private var lastDtsTicks: Int64?
    private var info: SegmentInfo?

    /// `lossless` adds a second sound stream: the same sound uncompressed (SMPTE 302M).
    public init(path: String, parameters: CodecParameters, audio: AudioParameters? = nil,
                lossless: AudioParameters? = nil) throws {
        self.path = path
        let output = try OutputFormatContext(path: path, formatName: "mpegts")
        self.output = output
        stream = try output.addVideoStream(parameters, timeBase: Timestamps.mpegBase)
        audioStream = try audio.map { try output.addAudioStream($0, timeBase: Timestamps.mpegBase) }
        losslessStream = try lossless.map { try output.addAudioStream($0, timeBase: Timestamps.mpegBase) }
        output.pointer.pointee.max_delay = 0
        try output.writeHeader(options: [("mpegts_copyts", "1")])
        packet = try Packet()
    }

    /// Appends one packet. Timestamps must be non-negative (TS cannot store negative
    /// times) and dts strictly increasing at 90 kHz resolution.
    public func write(_ encoded: EncodedPacket) throws {
        guard info == nil else { throw FFmpegError.invalid("SegmentWriter.write", path: path, "segment already finished") }
        guard encoded.ptsNanoseconds >= 0, encoded.dtsNanoseconds >= 0 else {
            throw FFmpegError.invalid("SegmentWriter.write", path: path,
                                      "negative timestamp (pts \(encoded.ptsNanoseconds) ns, dts \(encoded.dtsNanoseconds) ns)")
        }
        let pts = Timestamps.ticks90k(encoded.ptsNanoseconds)
        let dts = Timestamps.ticks90k(encoded.dtsNanoseconds)
        if let previous = lastDtsTicks, dts <= previous {
            throw FFmpegError.invalid("SegmentWriter.write", path: path,
                                      "dts \(dts) (90 kHz) not after previous \(previous)")
        }
        try packet.load(encoded.data, pts: pts, dts: dts,
                        duration: Timestamps.ticks90k(encoded.durationNanoseconds), keyframe: encoded.isKeyframe)
        packet.pointer.pointee.stream_index = stream.pointee.index
        try output.write(packet)
        lastDtsTicks = dts
        frameCount += 1
        if firstPts == nil || encoded.ptsNanoseconds < firstPts! { firstPts = encoded.ptsNanoseconds }
        if frameCount == 1 || encoded.ptsNanoseconds >= lastPts {
            lastPts = encoded.ptsNanoseconds
            lastDuration = encoded.durationNanoseconds
        }
    }

    /// Appends one audio packet (of the uncompressed stream with `lossless`); dts
    /// strictly increasing within its stream.
    public func writeAudio(_ encoded: EncodedPacket, lossless: Bool = false) throws {
        guard info == nil else { throw FFmpegError.invalid("SegmentWriter.writeAudio", path: path, "segment already finished") }
        guard let audioStream = lossless ? losslessStream : audioStream else {
            throw FFmpegError.invalid("SegmentWriter.writeAudio", path: path, "segment has no \(lossless ? "lossless " : "")audio stream")
        }
        guard encoded.ptsNanoseconds >= 0 else {
            throw FFmpegError.invalid("SegmentWriter.writeAudio", path: path, "negative timestamp \(encoded.ptsNanoseconds) ns")
        }
        let pts = Timestamps.ticks90k(encoded.ptsNanoseconds)
        if let previous = lossless ? lastLosslessDtsTicks : lastAudioDtsTicks, pts <= previous {
            throw FFmpegError.invalid("SegmentWriter.writeAudio", path: path, "audio pts \(pts) (90 kHz) not after previous \(previous)")
        }
        try packet.load(encoded.data, pts: pts, dts: pts, duration: Timestamps.ticks90k(encoded.durationNanoseconds), keyframe: true)
        packet.pointer.pointee.stream_index = audioStream.pointee.index
        try output.write(packet)
        if lossless { lastLosslessDtsTicks = pts } else {
            lastAudioDtsTicks = pts
            audioPacketCount += 1
        }
    }

    /// Writes the trailer, fsyncs file and directory, and describes the result. Calling
    /// it again returns the same description.
    public func finish() throws -> SegmentInfo {
        if let info { return info }
        try output.finish()
        let first = firstPts ?? 0
        let result = SegmentInfo(byteCount: try FileSync.size(path: path), frameCount: frameCount,
                                 firstPtsNanoseconds: first, lastPtsNanoseconds: frameCount > 0 ? lastPts : 0,
                                 durationNanoseconds: frameCount > 0 ? lastPts + lastDuration - first : 0)
        info = result
        return result
    }
}
