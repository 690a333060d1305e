import CFFmpeg
import DualCamCore

/// Encodes pictures straight into an MP4 file (the combined composite). Not thread-safe.
public final class MP4VideoWriter {
    public let outputPath: String
    private let encoder: VideoEncoder
    private let output: MP4Output
    private let packet: Packet
    private var finished = false

    public init(outputPath: String, settings: VideoEncoderSettings, creationTimeUnixSeconds: Int64?) throws {
        self.outputPath = outputPath
        encoder = try VideoEncoder(settings: settings)
        output = try MP4Output(path: outputPath, creationTimeUnixSeconds: creationTimeUnixSeconds)
        try output.start(parameters: encoder.parameters)
        packet = try Packet()
    }

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
        try output.finish()
    }

    private func store(_ encoded: EncodedPacket) throws {
        let base = output.timeBase
        try packet.load(encoded.data,
                        pts: Timestamps.rescale(encoded.ptsNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        dts: Timestamps.rescale(encoded.dtsNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        duration: Timestamps.rescale(encoded.durationNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        keyframe: encoded.isKeyframe)
        try output.write(packet)
    }
}
