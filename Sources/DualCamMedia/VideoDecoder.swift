import CFFmpeg
import DualCamCore
import Glibc

/// Decodes EncodedPackets to yuv420p pictures. Decoders that output another format
/// (yuvj420p from MJPEG, 4:2:2, 10-bit) are converted with libswscale. Not thread-safe.
public final class VideoDecoder {
    public let parameters: CodecParameters
    private let context: CodecContext
    private let packet: Packet
    private let frame: Frame
    private var converter: ScaleContext?
    /// A picture handed back by `recycle`, filled again by the next frame of its size.
    private var spare: YUV420Image?
    private var flushed = false

    /// `threads`: libavcodec's decoding threads, 0 for one per core, 1 (the default) for
    /// none. With frame threads a picture comes out up to `threads - 1` packets after its
    /// own (`threading` tells what the codec took): callers must take each picture's
    /// timestamp from the `DecodedFrame`, never from the packet just fed, and `flush` at
    /// the end for the last ones.
    public init(parameters: CodecParameters, threads: Int = 1) throws {
        context = try CodecContext.openDecoder(id: try parameters.codecID(), name: parameters.codecName, threads: threads) {
            try parameters.write(to: $0)
        }
        self.parameters = parameters
        self.packet = try Packet()
        self.frame = try Frame()
    }

    /// What libavcodec made of the threads asked for: "frame threads ×4", "slice threads
    /// ×2", or "one thread" (Debian 12's FFmpeg 5.1 decodes MJPEG on one thread whatever
    /// is asked: its mjpeg decoder has no threading capability).
    public var threading: String {
        let c = context.pointer.pointee
        let kind = c.active_thread_type
        if kind & FF_THREAD_FRAME != 0 { return "frame threads ×\(c.thread_count)" }
        if kind & FF_THREAD_SLICE != 0 { return "slice threads ×\(c.thread_count)" }
        return "one thread"
    }

    /// Packets a picture may come out behind its own: thread_count - 1 with frame threads.
    public var frameDelay: Int {
        let c = context.pointer.pointee
        return c.active_thread_type & FF_THREAD_FRAME != 0 ? max(Int(c.thread_count) - 1, 0) : 0
    }

    /// Feeds one packet; returns the pictures that became ready (decoders may hold some back).
    public func decode(_ encoded: EncodedPacket) throws -> [DecodedFrame] {
        guard !flushed else { throw FFmpegError.invalid("VideoDecoder.decode", "decoder already flushed") }
        try packet.load(encoded.data, pts: encoded.ptsNanoseconds, dts: encoded.dtsNanoseconds,
                        duration: encoded.durationNanoseconds, keyframe: encoded.isKeyframe)
        defer { packet.unref() }
        try check(avcodec_send_packet(context.pointer, packet.pointer), "avcodec_send_packet",
                  detail: "pts \(encoded.ptsNanoseconds) ns, \(encoded.data.count) bytes")
        return try receiveFrames()
    }

    /// Gives a picture this decoder returned back to it once the caller is done with it:
    /// the next frame of the same size is written into its planes rather than into new
    /// ones (a camera's MJPEG frames, decoded and encoded one after the other). Planes
    /// still referenced elsewhere by then are copied on write, never overwritten.
    public func recycle(_ image: consuming YUV420Image) {
        spare = image
    }

    /// Returns the pictures still inside the decoder at end of stream.
    public func flush() throws -> [DecodedFrame] {
        guard !flushed else { return [] }
        flushed = true
        try check(avcodec_send_packet(context.pointer, nil), "avcodec_send_packet", detail: "flush")
        return try receiveFrames()
    }

    private func receiveFrames() throws -> [DecodedFrame] {
        var output: [DecodedFrame] = []
        while true {
            let result = avcodec_receive_frame(context.pointer, frame.pointer)
            if result == dc_averror_eagain() || result == dc_averror_eof() { break }
            try check(result, "avcodec_receive_frame")
            defer { frame.unref() }
            let f = frame.pointer.pointee
            let pts = f.pts != dc_nopts_value() ? f.pts : f.best_effort_timestamp
            output.append(DecodedFrame(image: try picture(), ptsNanoseconds: pts))
        }
        return output
    }

    private func picture() throws -> YUV420Image {
        let f = frame.pointer.pointee
        // Moved out of `spare`, never copied: the planes must have one owner to be
        // written in place (another reference would make the write copy them).
        var reused: YUV420Image?
        if let candidate = spare.take(), candidate.width == Int(f.width), candidate.height == Int(f.height) {
            reused = candidate
        }
        if f.format == AV_PIX_FMT_YUV420P.rawValue {
            guard var picture = reused.take() else { return PictureCopy.image(from: frame.pointer) }
            PictureCopy.copy(frame.pointer, into: &picture)
            return picture
        }
        let geometry = ScaleContext.Geometry(sourceWidth: f.width, sourceHeight: f.height, sourceFormat: f.format,
                                             targetWidth: f.width, targetHeight: f.height,
                                             targetFormat: AV_PIX_FMT_YUV420P.rawValue)
        if converter?.geometry != geometry {
            converter = try ScaleContext(geometry, flags: SWS_BICUBIC)
        }
        guard let converter else { preconditionFailure("converter set above") }
        // Converted straight into the picture handed on: the conversion is the only copy.
        let alignment = ScaleContext.strideAlignment
        var picture: YUV420Image
        if let candidate = reused.take(), candidate.lumaStride % alignment == 0, candidate.chromaStride % alignment == 0 {
            picture = candidate
        } else {
            picture = YUV420Image(width: Int(f.width), height: Int(f.height), strideAlignment: alignment)
        }
        let planes: [UnsafePointer<UInt8>?] = [UnsafePointer(f.data.0), UnsafePointer(f.data.1), UnsafePointer(f.data.2),
                                               UnsafePointer(f.data.3)]
        let strides: [Int32] = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        let rows = converter.scale(planes, strides: strides, rows: f.height, into: &picture)
        guard rows > 0 else {
            throw FFmpegError(code: rows < 0 ? rows : dc_averror(EINVAL), call: "sws_scale",
                              detail: "decoder output format \(f.format) to yuv420p")
        }
        return picture
    }
}
