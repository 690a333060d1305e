import CFFmpeg
import Glibc

/// The MP4 side shared by MP4Remuxer and MP4VideoWriter: one video track in 1/90000 (the
/// TS clock, so remuxed ticks are copied, never re-rounded), optionally one AAC track in
/// 1/sample rate, `creation_time`, and faststart (moov before mdat, so players can start
/// before the whole file arrives).
final class MP4Output {
    let path: String
    private let output: OutputFormatContext
    private let tags: MP4Tags
    private(set) var stream: UnsafeMutablePointer<AVStream>?
    private(set) var audioStream: UnsafeMutablePointer<AVStream>?
    private(set) var lastDts: Int64?
    private var lastAudioDts: Int64?

    init(path: String, tags: MP4Tags) throws {
        self.path = path
        self.tags = tags
        output = try OutputFormatContext(path: path, formatName: "mp4")
    }

    var started: Bool { stream != nil }

    /// Adds the track and writes the header. Deferred until the codec's extradata is
    /// known, which for a remux may only be the case once the first segment is open.
    func start(parameters: CodecParameters, audio: AudioParameters? = nil) throws {
        precondition(stream == nil, "MP4Output started twice")
        let stream = try output.addVideoStream(parameters, timeBase: Timestamps.mpegBase)
        audioStream = try audio.map { try output.addAudioStream($0, timeBase: $0.timeBase) }
        if let seconds = tags.creationTimeUnixSeconds {
            output.setMetadata("creation_time", MP4Output.iso8601(seconds))
        }
        for (key, value) in tags.metadata.sorted(by: { $0.key < $1.key }) { output.setMetadata(key, value) }
        if let name = tags.trackName { output.setMetadata("handler_name", name, stream: stream) }
        // The muxer turns this into a tmcd track referenced by the video track.
        if let timecode = tags.timecode { output.setMetadata("timecode", timecode, stream: stream) }
        // The movie's timescale too: a first frame after zero becomes an edit list whose
        // empty edit the muxer counts in it, rounded down, and at its default of 1000 a
        // free-running camera's file started up to 1 ms early (its clock truth read a
        // mean of +0.5 ms where the frames were right).
        try output.writeHeader(options: [("movflags", "+faststart"), ("video_track_timescale", "90000"),
                                         ("movie_timescale", "90000")])
        self.stream = stream
    }

    /// The track's time base as the muxer settled it in the header.
    var timeBase: AVRational { stream?.pointee.time_base ?? Timestamps.mpegBase }

    /// The audio track's time base as the muxer settled it.
    var audioTimeBase: AVRational? { audioStream?.pointee.time_base }

    /// Writes an audio packet whose timestamps are in `audioTimeBase`; like video, one
    /// whose dts does not advance is dropped. Returns whether it was written.
    @discardableResult
    func writeAudio(_ packet: Packet) throws -> Bool {
        guard let audioStream else { preconditionFailure("MP4Output.writeAudio without an audio track") }
        return try write(packet, to: audioStream, after: &lastAudioDts)
    }

    /// Writes a packet whose timestamps are already in `timeBase`. A packet whose dts
    /// does not advance (a segment delivered twice, an overlap) is dropped with a
    /// warning: MP4 cannot store it, and the earlier copy is already in the file.
    /// Returns whether it was written.
    @discardableResult
    func write(_ packet: Packet) throws -> Bool {
        guard let stream else { preconditionFailure("MP4Output.write before start") }
        return try write(packet, to: stream, after: &lastDts)
    }

    private func write(_ packet: Packet, to stream: UnsafeMutablePointer<AVStream>, after last: inout Int64?) throws -> Bool {
        let p = packet.pointer
        if p.pointee.dts == dc_nopts_value() { p.pointee.dts = p.pointee.pts }
        if let previous = last, p.pointee.dts <= previous {
            MediaLog.warning("\(path): dropping packet of stream \(stream.pointee.index) with dts \(p.pointee.dts) not after \(previous)")
            packet.unref()
            return false
        }
        p.pointee.stream_index = stream.pointee.index
        last = p.pointee.dts
        try output.write(packet)
        return true
    }

    func finish() throws { try output.finish() }

    /// "2024-05-01T12:00:00.000000Z", the form libavformat parses for creation_time.
    static func iso8601(_ unixSeconds: Int64) -> String {
        var time = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).000000Z"
    }
}
