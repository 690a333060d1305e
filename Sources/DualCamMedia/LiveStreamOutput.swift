import CFFmpeg
import DualCamCore

/// The programme sent to a streaming destination: already encoded H.264 and AAC packets
/// muxed as FLV over `rtmp://`/`rtmps://` or MPEG-TS over `srt://` (libavformat's
/// protocols). Opening connects, so it may take until `timeoutSeconds`; run it off any
/// thread that must not wait. Not thread-safe.
public final class LiveStreamOutput {
    private let output: OutputFormatContext
    private let video: UnsafeMutablePointer<AVStream>
    private let audio: UnsafeMutablePointer<AVStream>?
    private let packet: Packet
    private var lastVideoDts: Int64?
    private var lastAudioDts: Int64?
    public private(set) var bytesWritten: Int64 = 0
    private let deadline: NetworkDeadline
    private let timeoutSeconds: Double

    /// The muxer a URL's scheme takes, nil for a scheme we do not stream to.
    public static func formatName(url: String) -> String? {
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        switch scheme {
        case "rtmp", "rtmps": return "flv"
        case "srt": return "mpegts"
        default: return nil
        }
    }

    /// `shownAs`: the URL as logs and errors may name it (its key masked). No connect,
    /// write or close blocks longer than `timeoutSeconds` by `now` (the program's
    /// monotonic clock in nanoseconds).
    public init(url: String, shownAs: String, video parameters: CodecParameters, audio audioParameters: AudioParameters?,
                timeoutSeconds: Double, sendBufferBytes: Int? = nil, now: @escaping @Sendable () -> Int64) throws {
        guard let format = Self.formatName(url: url) else {
            throw FFmpegError.invalid("LiveStreamOutput", path: shownAs, "not an rtmp://, rtmps:// or srt:// address")
        }
        let microseconds = String(Int64(timeoutSeconds * 1e6))
        // rw_timeout: any protocol's reads and writes; SRT's own connect wait is in µs too.
        var options = [("rw_timeout", microseconds)]
        // A socket buffer of about a second of the stream: the kernel's own (up to
        // megabytes) would hide a slow uplink behind seconds of delay before the backlog
        // saw it and dropped to the newest picture.
        if let sendBufferBytes { options.append(("send_buffer_size", String(sendBufferBytes))) }
        // SRT in live mode drops what is unsent at close unless told to linger: the
        // programme's last second would be lost.
        if format == "mpegts" {
            options += [("connect_timeout", String(Int64(timeoutSeconds * 1e3))), ("transtype", "live"), ("linger", "2")]
        }
        let deadline = NetworkDeadline(now: now)
        self.deadline = deadline
        self.timeoutSeconds = timeoutSeconds
        let context = try deadline.within(seconds: timeoutSeconds) {
            try OutputFormatContext(url: url, shownAs: shownAs, formatName: format, ioOptions: options, deadline: deadline)
        }
        video = try context.addVideoStream(parameters, timeBase: AVRational(num: 1, den: 1000))
        audio = try audioParameters.map { try context.addAudioStream($0, timeBase: $0.timeBase) }
        // A live muxer writes as packets come: no index to seek back to.
        try deadline.within(seconds: timeoutSeconds) {
            try context.writeHeader(options: format == "flv" ? [("flvflags", "no_duration_filesize")] : [])
        }
        output = context
        packet = try Packet()
    }

    deinit { close() }

    /// Writes a video packet (timestamps in ns on the programme's clock); one whose dts does
    /// not advance is skipped.
    public func writeVideo(_ encoded: EncodedPacket) throws {
        try write(encoded, to: video, last: &lastVideoDts)
    }

    public func writeAudio(_ encoded: EncodedPacket) throws {
        guard let audio else { return }
        try write(encoded, to: audio, last: &lastAudioDts)
    }

    private func write(_ encoded: EncodedPacket, to stream: UnsafeMutablePointer<AVStream>, last: inout Int64?) throws {
        let base = stream.pointee.time_base
        let dts = Timestamps.rescale(encoded.dtsNanoseconds, from: Timestamps.nanosecondBase, to: base)
        if let last, dts <= last { return }
        try packet.load(encoded.data, pts: Timestamps.rescale(encoded.ptsNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        dts: dts, duration: Timestamps.rescale(encoded.durationNanoseconds, from: Timestamps.nanosecondBase, to: base),
                        keyframe: encoded.isKeyframe)
        packet.pointer.pointee.stream_index = stream.pointee.index
        last = dts
        bytesWritten += Int64(encoded.data.count)
        try deadline.within(seconds: timeoutSeconds) { try output.write(packet) }
    }

    /// Ends the stream (trailer, close); the peer may already be gone.
    public func close() { deadline.within(seconds: timeoutSeconds) { output.finishStream() } }
}
