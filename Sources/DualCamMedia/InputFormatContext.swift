import CFFmpeg
import Glibc

/// Owns one demuxing AVFormatContext, opened and probed, with its video stream chosen.
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String
    let videoStreamIndex: Int32

    init(path: String) throws {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        // On failure avformat_open_input frees the context itself.
        try check(avformat_open_input(&context, path, nil, nil), "avformat_open_input", path: path)
        guard let opened = context else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avformat_open_input", path: path)
        }
        let infoResult = avformat_find_stream_info(opened, nil)
        let streamIndex = av_find_best_stream(opened, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        if infoResult < 0 || streamIndex < 0 {
            // Not yet owned by self, so close here rather than relying on deinit.
            var doomed: UnsafeMutablePointer<AVFormatContext>? = opened
            avformat_close_input(&doomed)
            if infoResult < 0 {
                throw FFmpegError(code: infoResult, call: "avformat_find_stream_info", path: path)
            }
            throw FFmpegError(code: streamIndex, call: "av_find_best_stream", path: path,
                              detail: "no video stream")
        }
        self.pointer = opened
        self.path = path
        self.videoStreamIndex = streamIndex
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }

    var videoStream: UnsafeMutablePointer<AVStream> {
        pointer.pointee.streams[Int(videoStreamIndex)]!
    }

    var videoTimeBase: AVRational { videoStream.pointee.time_base }

    var videoParameters: CodecParameters {
        let stream = videoStream
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        return CodecParameters(stream.pointee.codecpar, rate: rate)
    }

    /// Reads the next packet of the video stream into `packet`; false at end of file.
    /// Packets of other streams are skipped.
    func readVideoPacket(into packet: Packet) throws -> Bool {
        while true {
            packet.unref()
            let result = av_read_frame(pointer, packet.pointer)
            if result == dc_averror_eof() { return false }
            try check(result, "av_read_frame", path: path)
            if packet.pointer.pointee.stream_index == videoStreamIndex { return true }
        }
    }
}
