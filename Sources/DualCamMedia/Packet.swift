import CFFmpeg
import Glibc

/// Owns one AVPacket. Reused across calls (av_packet_unref between uses) so that the
/// per-frame path allocates only the payload buffer.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws {
        guard let packet = av_packet_alloc() else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "av_packet_alloc")
        }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    func unref() { av_packet_unref(pointer) }

    /// The next packet of `context`'s file, any stream, in place of this one's content;
    /// false at the end of the file.
    func read(from context: UnsafeMutablePointer<AVFormatContext>, path: String) throws -> Bool {
        unref()
        let result = av_read_frame(context, pointer)
        if result == dc_averror_eof() { return false }
        try check(result, "av_read_frame", path: path)
        return true
    }

    var isKeyframe: Bool { pointer.pointee.flags & dc_pkt_flag_key() != 0 }

    var bytes: [UInt8] {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    /// Replaces the content with a refcounted copy of `data` (av_new_packet pads it as the
    /// parsers require) and the given timestamps, already in the consumer's time base.
    func load(_ data: [UInt8], pts: Int64, dts: Int64, duration: Int64, keyframe: Bool) throws {
        unref()
        try check(av_new_packet(pointer, Int32(data.count)), "av_new_packet", detail: "\(data.count) bytes")
        if !data.isEmpty {
            data.withUnsafeBufferPointer { source in
                pointer.pointee.data.update(from: source.baseAddress!, count: data.count)
            }
        }
        pointer.pointee.pts = pts
        pointer.pointee.dts = dts
        pointer.pointee.duration = duration
        pointer.pointee.flags = keyframe ? dc_pkt_flag_key() : 0
    }
}
