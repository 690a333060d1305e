import CFFmpeg

/// Reads media files through libavformat to check what they contain.
public enum MediaProbe {
    /// Container facts plus every video packet's timestamp and keyframe flag.
    public static func probe(path: String) throws -> ProbeResult {
        let input = try InputFormatContext(path: path)
        let packet = try Packet()
        let base = input.videoTimeBase
        var ticks: [Int64] = []
        var keyframes = 0
        var end: Int64 = 0
        while try input.readVideoPacket(into: packet) {
            let p = packet.pointer.pointee
            let pts = p.pts != dc_nopts_value() ? p.pts : p.dts
            guard pts != dc_nopts_value() else { continue }
            ticks.append(pts)
            end = max(end, pts + max(p.duration, 0))
            if packet.isKeyframe { keyframes += 1 }
        }
        ticks.sort()
        let context = input.pointer.pointee
        var duration: Double
        if context.duration != dc_nopts_value() && context.duration > 0 {
            duration = Double(context.duration) / Double(dc_av_time_base())
        } else if input.videoStream.pointee.duration != dc_nopts_value() && input.videoStream.pointee.duration > 0 {
            duration = Timestamps.seconds(input.videoStream.pointee.duration, in: base)
        } else {
            duration = Timestamps.seconds(end - (ticks.first ?? 0), in: base)
        }
        var creationTime: String?
        if let entry = av_dict_get(context.metadata, "creation_time", nil, 0) {
            creationTime = String(cString: entry.pointee.value)
        }
        let parameters = input.videoParameters
        var result = ProbeResult(formatName: String(cString: context.iformat.pointee.name),
                           codecName: parameters.codecName, width: parameters.width, height: parameters.height,
                           frameCount: ticks.count, durationSeconds: duration,
                           frameTimestampsSeconds: ticks.map { Timestamps.seconds($0, in: base) },
                           frameTimestampsNanoseconds: ticks.map { Timestamps.nanoseconds($0, in: base) },
                           keyframeCount: keyframes, creationTime: creationTime)
        if let entry = av_dict_get(input.videoStream.pointee.metadata, "timecode", nil, 0) {
            result.timecode = String(cString: entry.pointee.value)
        }
        result.audio = input.audioParameters
        return result
    }

    /// Decodes the file's video and calls `body` with each picture in presentation order.
    public static func forEachFrame(path: String, _ body: (DecodedFrame) throws -> Void) throws {
        try forEachFrameWhile(path: path) { try body($0); return true }
    }

    /// As `forEachFrame`, stopping (and decoding no further) once `body` returns false.
    public static func forEachFrameWhile(path: String, _ body: (DecodedFrame) throws -> Bool) throws {
        let demuxer = try MediaDemuxer(path: path)
        let decoder = try VideoDecoder(parameters: demuxer.videoParameters)
        while let packet = try demuxer.nextVideoPacket() {
            for frame in try decoder.decode(packet) where try !body(frame) { return }
        }
        for frame in try decoder.flush() where try !body(frame) { return }
    }
}
