import CFFmpeg
import Glibc

/// Owns one demuxing AVFormatContext, opened and probed, with its video stream chosen.
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String
    let videoStreamIndex: Int32
    /// The (compressed) audio stream, when the file has one.
    let audioStreamIndex: Int32?
    /// A segment's uncompressed copy of its sound (SMPTE 302M), when it has one.
    let losslessStreamIndex: Int32?

    /// `lossless`: whether the uncompressed sound stream (SMPTE 302M) is wanted. Where it
    /// is not, it is discarded before probing: at ~1.9 Mbit/s it would cost more to
    /// parse than the pictures.
    init(path: String, lossless: Bool = false) throws {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        // On failure avformat_open_input frees the context itself.
        try check(avformat_open_input(&context, path, nil, nil), "avformat_open_input", path: path)
        guard let opened = context else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "avformat_open_input", path: path)
        }
        if !lossless {
            for i in 0..<Int(opened.pointee.nb_streams) where opened.pointee.streams[i]!.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_S302M {
                opened.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
            }
        }
        // A segment may hold seconds of sound before its first picture (an agent that
        // rejoined a take late): the default 5 s of probing would end before the video's
        // parameter sets and leave it without a picture size. Our files are local and
        // bounded, so read as far as it takes.
        opened.pointee.max_analyze_duration = 120 * dc_av_time_base()
        opened.pointee.probesize = 256 << 20
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
        // Chosen by codec, not by av_find_best_stream, which would prefer the bulkier PCM.
        var audioIndex: Int32?, losslessIndex: Int32?
        for i in 0..<Int32(opened.pointee.nb_streams) {
            let par = opened.pointee.streams[Int(i)]!.pointee.codecpar!
            guard par.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            if par.pointee.codec_id == AV_CODEC_ID_S302M {
                if lossless && losslessIndex == nil { losslessIndex = i }
            } else if audioIndex == nil {
                audioIndex = i
            }
        }
        self.audioStreamIndex = audioIndex
        self.losslessStreamIndex = losslessIndex
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

    var audioStream: UnsafeMutablePointer<AVStream>? {
        audioStreamIndex.map { pointer.pointee.streams[Int($0)]! }
    }

    var audioParameters: AudioParameters? {
        audioStream.map { AudioParameters($0.pointee.codecpar) }
    }

    var losslessStream: UnsafeMutablePointer<AVStream>? {
        losslessStreamIndex.map { pointer.pointee.streams[Int($0)]! }
    }

    var losslessParameters: AudioParameters? {
        losslessStream.map { AudioParameters($0.pointee.codecpar) }
    }

    enum StreamKind { case video, audio, lossless }

    /// Reads the next packet of the video or audio stream into `packet`, in file order;
    /// nil at end of file. Packets of other streams are skipped.
    func readPacket(into packet: Packet) throws -> StreamKind? {
        while try packet.read(from: pointer, path: path) {
            let index = packet.pointer.pointee.stream_index
            if index == videoStreamIndex { return .video }
            if index == audioStreamIndex { return .audio }
            if index == losslessStreamIndex { return .lossless }
        }
        return nil
    }

    /// Reads the next packet of the video stream into `packet`; false at end of file.
    /// Packets of other streams are skipped.
    func readVideoPacket(into packet: Packet) throws -> Bool {
        while try packet.read(from: pointer, path: path) {
            if packet.pointer.pointee.stream_index == videoStreamIndex { return true }
        }
        return false
    }
}
