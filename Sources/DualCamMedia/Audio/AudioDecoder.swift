import CFFmpeg
import Glibc

/// Decoded audio: interleaved Float samples starting at `ptsNanoseconds`.
public struct DecodedAudio: Sendable {
    public var ptsNanoseconds: Int64
    public var samples: [Float]
    public var channels: Int
    public var sampleCount: Int { samples.count / max(channels, 1) }

    public init(ptsNanoseconds: Int64, samples: [Float], channels: Int) {
        self.ptsNanoseconds = ptsNanoseconds
        self.samples = samples
        self.channels = channels
    }
}

/// Decodes AAC, SMPTE 302M (or any codec putting out float or 16/32-bit integer
/// samples) to interleaved Float. Not thread-safe.
public final class AudioDecoder {
    public let parameters: AudioParameters
    private let context: CodecContext
    private let packet: Packet
    private let frame: Frame

    public init(parameters: AudioParameters) throws {
        guard let descriptor = avcodec_descriptor_get_by_name(parameters.codecName) else {
            throw FFmpegError(code: dc_averror_decoder_not_found(), call: "avcodec_descriptor_get_by_name",
                              detail: "unknown codec '\(parameters.codecName)'")
        }
        context = try CodecContext.openDecoder(id: descriptor.pointee.id, name: parameters.codecName) {
            try parameters.write(to: $0)
        }
        self.parameters = parameters
        packet = try Packet()
        frame = try Frame()
    }

    public func decode(_ encoded: EncodedPacket) throws -> [DecodedAudio] {
        try packet.load(encoded.data, pts: encoded.ptsNanoseconds, dts: encoded.dtsNanoseconds,
                        duration: encoded.durationNanoseconds, keyframe: true)
        defer { packet.unref() }
        let sent = avcodec_send_packet(context.pointer, packet.pointer)
        // A damaged packet costs its 21 ms, not the whole stream.
        if sent == dc_averror_invaliddata() {
            MediaLog.warning("skipping undecodable audio packet at \(encoded.ptsNanoseconds) ns")
            return []
        }
        try check(sent, "avcodec_send_packet", detail: "audio pts \(encoded.ptsNanoseconds) ns")
        return try receive()
    }

    public func flush() throws -> [DecodedAudio] {
        try check(avcodec_send_packet(context.pointer, nil), "avcodec_send_packet", detail: "flush")
        return try receive()
    }

    private func receive() throws -> [DecodedAudio] {
        var output: [DecodedAudio] = []
        while true {
            let result = avcodec_receive_frame(context.pointer, frame.pointer)
            if result == dc_averror_eagain() || result == dc_averror_eof() { break }
            if result == dc_averror_invaliddata() { continue }
            try check(result, "avcodec_receive_frame", detail: "audio")
            defer { frame.unref() }
            output.append(try Self.interleaved(frame.pointer))
        }
        return output
    }

    private static func interleaved(_ f: UnsafeMutablePointer<AVFrame>) throws -> DecodedAudio {
        let count = Int(f.pointee.nb_samples)
        let channels = Int(f.pointee.ch_layout.nb_channels)
        var samples = [Float](repeating: 0, count: count * channels)
        switch AVSampleFormat(rawValue: f.pointee.format) {
        case AV_SAMPLE_FMT_FLTP:
            for ch in 0..<channels {
                let plane = f.pointee.extended_data[ch]!.withMemoryRebound(to: Float.self, capacity: count) { $0 }
                for i in 0..<count { samples[i * channels + ch] = plane[i] }
            }
        case AV_SAMPLE_FMT_FLT:
            let data = f.pointee.extended_data[0]!.withMemoryRebound(to: Float.self, capacity: count * channels) { $0 }
            for i in 0..<(count * channels) { samples[i] = data[i] }
        case AV_SAMPLE_FMT_S16:
            let data = f.pointee.extended_data[0]!.withMemoryRebound(to: Int16.self, capacity: count * channels) { $0 }
            for i in 0..<(count * channels) { samples[i] = Float(data[i]) / 32768 }
        case AV_SAMPLE_FMT_S32:
            let data = f.pointee.extended_data[0]!.withMemoryRebound(to: Int32.self, capacity: count * channels) { $0 }
            for i in 0..<(count * channels) { samples[i] = Float(data[i]) / 2_147_483_648 }
        default:
            let name = av_get_sample_fmt_name(AVSampleFormat(rawValue: f.pointee.format)).map { String(cString: $0) } ?? "?"
            throw FFmpegError.invalid("AudioDecoder", "decoder output \(name) is not a float format")
        }
        let pts = f.pointee.best_effort_timestamp != dc_nopts_value() ? f.pointee.best_effort_timestamp : f.pointee.pts
        return DecodedAudio(ptsNanoseconds: pts, samples: samples, channels: channels)
    }
}
