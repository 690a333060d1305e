import CFFmpeg

/// Concatenates TS segments of one camera into an MP4 file without re-encoding, its
/// sound (when the segments carry any) in a second track.
///
/// Every packet keeps the pts it was stamped with: the track runs at 90 kHz like the
/// segments, a first frame later than zero is kept as an initial offset (edit list), and
/// a gap between frames stays a gap (a long sample duration). The last frame lasts one
/// nominal frame, so the file ends at last pts + one frame. Not thread-safe.
public final class MP4Remuxer {
    public let outputPath: String
    private let parameters: CodecParameters
    private let output: MP4Output
    private let packet: Packet
    /// Packets dropped because their dts did not advance (overlapping or repeated segments).
    public private(set) var droppedPacketCount = 0
    public private(set) var packetCount = 0
    public private(set) var audioPacketCount = 0
    private var finished = false
    /// The first segment's parameter sets, and whether a later segment brought others.
    private var firstParameterSets: [UInt8] = []
    public private(set) var parameterSetsChange = false

    public convenience init(outputPath: String, parameters: CodecParameters, creationTimeUnixSeconds: Int64?) throws {
        try self.init(outputPath: outputPath, parameters: parameters, tags: MP4Tags(creationTimeUnixSeconds: creationTimeUnixSeconds))
    }

    public init(outputPath: String, parameters: CodecParameters, tags: MP4Tags) throws {
        self.outputPath = outputPath
        self.parameters = parameters
        output = try MP4Output(path: outputPath, tags: tags)
        packet = try Packet()
    }

    /// The segment's uncompressed sound (SMPTE 302M) as the last `append` found it, for
    /// the caller's WAV: read in the same pass, so a segment is opened once.
    public private(set) var losslessPackets: [EncodedPacket] = []
    public private(set) var losslessParameters: AudioParameters?
    /// Channels the node recorded (302M carries mono as a pair); from the AAC stream.
    public private(set) var recordedChannels: Int?

    /// Appends every video and audio packet of the segment at `path`, in order.
    public func append(segmentAt path: String) throws {
        guard !finished else { throw FFmpegError.invalid("MP4Remuxer.append", path: outputPath, "already finished") }
        let input = try InputFormatContext(path: path, lossless: true)
        losslessPackets = []
        losslessParameters = input.losslessParameters
        recordedChannels = input.audioParameters?.channels
        if !output.started {
            var start = parameters
            // Parameter sets only in-band (e.g. an H.264 pass-through camera): take them
            // from what the TS demuxer extracted.
            if start.extradata.isEmpty { start.extradata = input.videoParameters.extradata }
            try output.start(parameters: start, audio: input.audioParameters)
            firstParameterSets = input.videoParameters.extradata
        } else if input.videoParameters.extradata != firstParameterSets {
            // An encoder reopened with another preset: new SPS/PPS in band from here.
            parameterSetsChange = true
        }
        let inputBase = input.videoTimeBase
        let outputBase = output.timeBase
        let frameDuration = frameDurationTicks(input: input, base: outputBase)
        while let kind = try input.readPacket(into: packet) {
            // The uncompressed copy is for the WAV beside the file, not for the MP4.
            if kind == .lossless {
                let p = packet.pointer.pointee
                if let base = input.losslessStream?.pointee.time_base, p.pts != dc_nopts_value() {
                    let pts = Timestamps.nanoseconds(p.pts, in: base)
                    losslessPackets.append(EncodedPacket(data: packet.bytes, ptsNanoseconds: pts, dtsNanoseconds: pts,
                                                         durationNanoseconds: Timestamps.nanoseconds(p.duration, in: base),
                                                         isKeyframe: true))
                }
                continue
            }
            if kind == .audio {
                try appendAudio(from: input)
                continue
            }
            let p = packet.pointer
            if p.pointee.pts == dc_nopts_value() && p.pointee.dts == dc_nopts_value() {
                throw FFmpegError(code: dc_averror_invaliddata(), call: "MP4Remuxer.append", path: path,
                                  detail: "packet without timestamps")
            }
            if p.pointee.pts != dc_nopts_value() {
                p.pointee.pts = Timestamps.rescale(p.pointee.pts, from: inputBase, to: outputBase)
            }
            if p.pointee.dts != dc_nopts_value() {
                p.pointee.dts = Timestamps.rescale(p.pointee.dts, from: inputBase, to: outputBase)
            }
            if p.pointee.pts == dc_nopts_value() { p.pointee.pts = p.pointee.dts }
            // Only the last packet's duration reaches the file (the others come from dts
            // deltas), but every packet may be the last.
            p.pointee.duration = frameDuration
            p.pointee.pos = -1
            if try output.write(packet) { packetCount += 1 } else { droppedPacketCount += 1 }
        }
    }

    /// Audio is copied like video, rescaled to the track's sample clock. A segment with
    /// sound after ones without (or the reverse) cannot change the file's tracks: its
    /// extra stream is left out.
    private func appendAudio(from input: InputFormatContext) throws {
        guard let base = output.audioTimeBase, let inputBase = input.audioStream?.pointee.time_base else { return }
        let p = packet.pointer
        if p.pointee.pts == dc_nopts_value() { p.pointee.pts = p.pointee.dts }
        guard p.pointee.pts != dc_nopts_value() else { return }
        p.pointee.pts = Timestamps.rescale(p.pointee.pts, from: inputBase, to: base)
        p.pointee.dts = p.pointee.pts
        p.pointee.duration = Timestamps.rescale(p.pointee.duration, from: inputBase, to: base)
        p.pointee.pos = -1
        if try output.writeAudio(packet) { audioPacketCount += 1 }
    }

    /// Writes the index (moved to the front), closes and fsyncs the file. A remuxer with
    /// no segment appended writes a valid file with an empty track.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        if !output.started { try output.start(parameters: parameters) }
        try output.finish()
        if parameterSetsChange { try MP4SampleEntry.allowInBandParameterSets(path: outputPath) }
    }

    private func frameDurationTicks(input: InputFormatContext, base: AVRational) -> Int64 {
        if let rate = parameters.frameRate { return Timestamps.period(of: rate, in: base) }
        let average = input.videoStream.pointee.avg_frame_rate
        if average.num > 0 && average.den > 0 {
            return Timestamps.rescale(1, from: AVRational(num: average.den, den: average.num), to: base)
        }
        return Timestamps.period(of: .fps30, in: base)
    }
}
