import CFFmpeg
import DualCamCore

/// Encodes pictures as baseline JPEG (libavcodec's mjpeg), for screens that cannot decode
/// H.264 (a tablet on plain HTTP, where browsers withhold WebCodecs). JPEG is full range:
/// the limited-range planes are stretched by lookup tables first, or blacks would show
/// as dark grey. Not thread-safe: one caller at a time.
public final class JPEGEncoder {
    public let width: Int
    public let height: Int
    private let context: CodecContext
    private let frame: Frame
    private let packet: Packet
    private var full: YUV420Image
    private var pts: Int64 = 0
    private static let lumaTable: [UInt8] = (0..<256).map { UInt8(min(max((Double($0) - 16) * 255 / 219, 0), 255).rounded()) }
    private static let chromaTable: [UInt8] = (0..<256).map {
        UInt8(min(max((Double($0) - 128) * 255 / 224 + 128, 0), 255).rounded())
    }

    /// `quality`: libavcodec's qscale, 2 (best) to 31; 5 looks clean at 640x360 in ~30 KB.
    public init(width: Int, height: Int, quality: Int = 5) throws {
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0 else {
            throw FFmpegError.invalid("JPEGEncoder.init", "size \(width)x\(height) must be positive and even")
        }
        guard let codec = avcodec_find_encoder_by_name("mjpeg") else {
            throw FFmpegError(code: dc_averror_encoder_not_found(), call: "avcodec_find_encoder_by_name",
                              detail: "the mjpeg encoder is not in this FFmpeg build")
        }
        let context = try CodecContext(codec: codec)
        let c = context.pointer
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
        c.pointee.time_base = AVRational(num: 1, den: 30)
        c.pointee.flags |= dc_codec_flag_qscale()
        c.pointee.global_quality = Int32(quality) * dc_ff_qp2lambda()
        try check(avcodec_open2(c, codec, nil), "avcodec_open2", detail: "mjpeg \(width)x\(height)")
        self.width = width
        self.height = height
        self.context = context
        frame = try Frame()
        packet = try Packet()
        full = YUV420Image(width: width, height: height)
    }

    /// `fullRange`: the picture is full range already (`fullRange(_:)`), and is encoded as
    /// it is; otherwise its limited range is stretched first.
    public func encode(_ image: YUV420Image, fullRange: Bool = false) throws -> [UInt8] {
        guard image.width == width, image.height == height else {
            throw FFmpegError.invalid("JPEGEncoder.encode", "picture is \(image.width)x\(image.height), expected \(width)x\(height)")
        }
        if !fullRange { Self.stretch(image, into: &full) }
        defer { frame.unref() }
        try LentPicture.lend(fullRange ? image : full, to: frame.pointer)
        frame.pointer.pointee.quality = context.pointer.pointee.global_quality
        frame.pointer.pointee.pts = pts
        pts += 1
        try check(avcodec_send_frame(context.pointer, frame.pointer), "avcodec_send_frame", detail: "jpeg")
        try check(avcodec_receive_packet(context.pointer, packet.pointer), "avcodec_receive_packet", detail: "jpeg")
        defer { packet.unref() }
        return packet.bytes
    }

    /// The picture stretched to full range, as JPEG wants it: for a caller that keeps
    /// pictures to encode later and can pay for the stretch ahead of time.
    public static func fullRange(_ image: YUV420Image) -> YUV420Image {
        var target = YUV420Image(width: image.width, height: image.height)
        stretch(image, into: &target)
        return target
    }

    private static func stretch(_ source: YUV420Image, into target: inout YUV420Image) {
        func map(_ from: [UInt8], _ fromStride: Int, _ to: inout [UInt8], _ toStride: Int, width: Int, rows: Int, _ table: [UInt8]) {
            table.withUnsafeBufferPointer { t in
                from.withUnsafeBufferPointer { f in
                    to.withUnsafeMutableBufferPointer { o in
                        for row in 0..<rows {
                            let a = row * fromStride, b = row * toStride
                            for x in 0..<width { o[b + x] = t[Int(f[a + x])] }
                        }
                    }
                }
            }
        }
        map(source.y, source.lumaStride, &target.y, target.lumaStride, width: source.width, rows: source.height, lumaTable)
        map(source.cb, source.chromaStride, &target.cb, target.chromaStride, width: source.chromaWidth,
            rows: source.chromaHeight, chromaTable)
        map(source.cr, source.chromaStride, &target.cr, target.chromaStride, width: source.chromaWidth,
            rows: source.chromaHeight, chromaTable)
    }
}
