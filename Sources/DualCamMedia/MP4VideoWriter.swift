import CFFmpeg
import DualCamCore

/// Encodes pictures (and, when asked, a sound track) straight into an MP4 file: the
/// combined composite. Not thread-safe.
public final class MP4VideoWriter {
    public let outputPath: String
    private var encoder: VideoEncoder
    private let output: MP4Output
    private let packet: Packet
    private let audioEncoder: AudioEncoder?
    private var finished = false
    /// Hears every packet as it is written (`true` for sound): the live stream's feed.
    /// Called on the writer's thread; it must not wait.
    public var tap: ((EncodedPacket, _ audio: Bool) -> Void)?
    /// The first encoder's parameter sets (the sample entry's), and whether a later
    /// encoder brought others: the file then gets `avc3` entries at `finish`.
    private let firstParameterSets: [UInt8]
    public private(set) var parameterSetsChange = false

    /// `audio` adds an AAC track fed through `writeAudio`.
    public convenience init(outputPath: String, settings: VideoEncoderSettings, creationTimeUnixSeconds: Int64?,
                            audio: (sampleRate: Int, channels: Int)? = nil) throws {
        try self.init(outputPath: outputPath, settings: settings, tags: MP4Tags(creationTimeUnixSeconds: creationTimeUnixSeconds),
                      audio: audio)
    }

    public init(outputPath: String, settings: VideoEncoderSettings, tags: MP4Tags,
                audio: (sampleRate: Int, channels: Int)? = nil) throws {
        self.outputPath = outputPath
        encoder = try VideoEncoder(settings: settings)
        audioEncoder = try audio.map { try AudioEncoder(sampleRate: $0.sampleRate, channels: $0.channels) }
        output = try MP4Output(path: outputPath, tags: tags)
        try output.start(parameters: encoder.parameters, audio: audioEncoder?.parameters)
        firstParameterSets = encoder.parameters.extradata
        packet = try Packet()
    }

    /// What a second muxer of the same packets needs (the live stream's header).
    public var videoParameters: CodecParameters { encoder.parameters }
    public var audioParameters: AudioParameters? { audioEncoder?.parameters }

    /// The settings of the encoder in use.
    public var settings: VideoEncoderSettings { encoder.settings }

    /// Drains the encoder in use and continues with another preset (`--preset auto` of the
    /// live composite stepping faster or back). The new encoder's first picture is an IDR
    /// that carries its own SPS/PPS in band (VideoEncoder puts them before every
    /// keyframe), so the switch costs no frame and no gap; `finish` marks the file's
    /// sample entry `avc3` when the parameter sets changed.
    public func switchEncoder(preset: String) throws {
        guard !finished else { throw FFmpegError.invalid("MP4VideoWriter.switchEncoder", path: outputPath, "already finished") }
        guard preset != encoder.settings.preset else { return }
        var settings = encoder.settings
        settings.preset = preset
        // Opened before the old one is drained: a preset that cannot open leaves the
        // file going on with the old encoder.
        let next = try VideoEncoder(settings: settings)
        for encoded in try encoder.flush() { try store(encoded) }
        encoder = next
        if next.parameters.extradata != firstParameterSets { parameterSetsChange = true }
    }

    /// Appends interleaved samples continuing the sound track from its position 0 at
    /// presentation time 0.
    public func writeAudio(_ samples: [Float]) throws {
        guard let audioEncoder else { throw FFmpegError.invalid("MP4VideoWriter.writeAudio", path: outputPath, "no audio track") }
        for encoded in try audioEncoder.encode(samples) { try storeAudio(encoded) }
    }

    /// Samples per channel written to the sound track so far.
    public var audioPosition: Int64 { audioEncoder?.position ?? 0 }

    /// Encodes and stores one picture; `ptsNanoseconds` strictly increasing.
    public func write(_ image: YUV420Image, ptsNanoseconds: Int64) throws {
        guard !finished else { throw FFmpegError.invalid("MP4VideoWriter.write", path: outputPath, "already finished") }
        for encoded in try encoder.encode(image, ptsNanoseconds: ptsNanoseconds, forceKeyframe: false) {
            try store(encoded)
        }
    }

    /// Drains the encoder, writes the index (moved to the front), closes and fsyncs.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        for encoded in try encoder.flush() { try store(encoded) }
        for encoded in try audioEncoder?.flush() ?? [] { try storeAudio(encoded) }
        try output.finish()
        if parameterSetsChange { try MP4SampleEntry.allowInBandParameterSets(path: outputPath) }
    }

    private func storeAudio(_ encoded: EncodedPacket) throws {
        guard let base = output.audioTimeBase else { return }
        tap?(encoded, true)
        // The priming packet before 0 is what MP4 needs for the first samples to decode
        // exactly; libavformat records it as the track's encoder delay (edit list).
        let pts = Timestamps.rescale(encoded.ptsNanoseconds, from: Timestamps.nanosecondBase, to: base)
        try packet.load(encoded.data, pts: pts, dts: pts,
                        duration: Timestamps.rescale(encoded.durationNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        keyframe: true)
        try output.writeAudio(packet)
    }

    private func store(_ encoded: EncodedPacket) throws {
        tap?(encoded, false)
        let base = output.timeBase
        try packet.load(encoded.data,
                        pts: Timestamps.rescale(encoded.ptsNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        dts: Timestamps.rescale(encoded.dtsNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        duration: Timestamps.rescale(encoded.durationNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        keyframe: encoded.isKeyframe)
        try output.write(packet)
    }
}
