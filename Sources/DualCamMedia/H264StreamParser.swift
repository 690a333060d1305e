import CFFmpeg
import Glibc

/// Splits an H.264 Annex B byte stream (as `rpicam-vid --codec h264 -o -` writes it) into
/// access units with libavcodec's parser. Each unit carries the timestamp given with the
/// chunk of bytes in which it began, which is how the agent stamps piped frames with
/// their arrival. Not thread-safe.
public final class H264StreamParser {
    public struct AccessUnit {
        public var data: [UInt8]
        public var arrivalNanoseconds: Int64
        public var isKeyframe: Bool
    }

    private let parser: UnsafeMutablePointer<AVCodecParserContext>
    private let context: CodecContext
    /// The latest arrival fed: the stamp of a unit whose start libavcodec lost track of.
    private var lastArrival: Int64 = 0

    public init() throws {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264) else {
            throw FFmpegError(code: dc_averror_decoder_not_found(), call: "avcodec_find_decoder", detail: "h264")
        }
        guard let parser = av_parser_init(Int32(AV_CODEC_ID_H264.rawValue)) else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "av_parser_init", detail: "h264")
        }
        self.parser = parser
        self.context = try CodecContext(codec: codec)
    }

    deinit { av_parser_close(parser) }

    /// Feeds a chunk read at `arrivalNanoseconds`; returns the units it completed.
    public func feed(_ bytes: [UInt8], arrivalNanoseconds: Int64) -> [AccessUnit] {
        var units: [AccessUnit] = []
        lastArrival = arrivalNanoseconds
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            repeat {
                var out: UnsafeMutablePointer<UInt8>?
                var outSize: Int32 = 0
                let used = av_parser_parse2(parser, context.pointer, &out, &outSize,
                                            buffer.baseAddress.map { $0 + offset }, Int32(buffer.count - offset),
                                            arrivalNanoseconds, arrivalNanoseconds, 0)
                if used < 0 { break }
                offset += Int(used)
                if let out, outSize > 0 { units.append(unit(out, Int(outSize))) }
            } while offset < buffer.count
        }
        return units
    }

    /// The last unit, held back until now because only the next one's start ends it.
    public func finish() -> [AccessUnit] {
        var out: UnsafeMutablePointer<UInt8>?
        var outSize: Int32 = 0
        _ = av_parser_parse2(parser, context.pointer, &out, &outSize, nil, 0, dc_nopts_value(), dc_nopts_value(), 0)
        guard let out, outSize > 0 else { return [] }
        return [unit(out, Int(outSize))]
    }

    private func unit(_ data: UnsafeMutablePointer<UInt8>, _ size: Int) -> AccessUnit {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        let pts = parser.pointee.pts
        return AccessUnit(data: bytes, arrivalNanoseconds: pts == dc_nopts_value() ? lastArrival : pts,
                          isKeyframe: parser.pointee.key_frame == 1 || H264Bitstream.isKeyframe(bytes))
    }
}
