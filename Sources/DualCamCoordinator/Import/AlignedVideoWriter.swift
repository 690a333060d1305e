import DualCamCore
import DualCamMedia
import Foundation

/// An imported video's pictures on the session's timeline: every packet copied as it is
/// (never re-encoded, any frame rate, variable included) with its times mapped through the
/// alignment, drift included, and the aligned sound beside it as AAC. Pictures recorded
/// before T0 are left out up to the first key frame after it (the original keeps them).
enum AlignedVideoWriter {
    struct Written {
        /// Session time of the copy's first picture.
        var firstPictureSeconds: Double
        var pictures: Int
        var leftOutBeforeT0: Int
    }

    static func write(_ source: ImportSource, alignment: SoundAlignmentResult, alignedSound: String, to path: String,
                      tags: (Int64) -> MP4Tags) throws -> Written {
        let soundZero = try firstSoundNanoseconds(source.path)
        let demuxer = try MediaDemuxer(path: source.path)
        // Mapped first, then written: the first picture's time names the copy's timecode.
        var pictures: [EncodedPacket] = []
        var leftOut = 0
        while let demuxed = try demuxer.nextPacket() {
            guard case .video(var packet) = demuxed else { continue }
            let fileSeconds = Double(packet.ptsNanoseconds - soundZero) / 1e9
            let piece = alignment.piece(atFileSeconds: fileSeconds)
            func mapped(_ ns: Int64) -> Int64 {
                Int64((piece.sessionTime(fileSeconds: Double(ns - soundZero) / 1e9) * 1e9).rounded())
            }
            packet.ptsNanoseconds = mapped(packet.ptsNanoseconds)
            packet.dtsNanoseconds = mapped(packet.dtsNanoseconds)
            packet.durationNanoseconds = Int64((Double(packet.durationNanoseconds) / (1 + piece.driftPPM * 1e-6)).rounded())
            if pictures.isEmpty, packet.ptsNanoseconds < 0 || !packet.isKeyframe {
                leftOut += 1
                continue
            }
            pictures.append(packet)
        }
        guard let first = pictures.first else {
            throw CoordinatorError("cannot import '\(source.path)': none of its pictures lies after the take's start (T0); "
                + "its sound was placed, but a video that ends before the take has nothing to add")
        }
        let reader = try SoundFileReader(path: alignedSound, sampleRate: AlignedSoundWriter.rate, channels: min(2, source.channels))
        let encoder = try AudioEncoder(sampleRate: AlignedSoundWriter.rate, channels: reader.channels)
        let writer = try RetimedMP4Writer(path: path, video: demuxer.videoParameters, audio: encoder.parameters,
                                          tags: tags(first.ptsNanoseconds))
        for picture in pictures { try writer.writeVideo(picture) }
        while true {
            let block = try reader.read(frames: 8192)
            if block.isEmpty { break }
            for packet in try encoder.encode(block) where packet.ptsNanoseconds >= 0 { try writer.writeAudio(packet) }
        }
        for packet in try encoder.flush() where packet.ptsNanoseconds >= 0 { try writer.writeAudio(packet) }
        try writer.finish()
        return Written(firstPictureSeconds: Double(first.ptsNanoseconds) / 1e9, pictures: writer.videoPackets,
                       leftOutBeforeT0: leftOut)
    }

    /// Where the decoded sound's first sample lies on the file's own clock: the first sound
    /// packet's time, or zero when that is negative (an AAC encoder's priming, which the
    /// decoder drops so that its first sample is at zero).
    private static func firstSoundNanoseconds(_ path: String) throws -> Int64 {
        let demuxer = try MediaDemuxer(path: path)
        while let demuxed = try demuxer.nextPacket() {
            if case .audio(let packet) = demuxed { return max(0, packet.ptsNanoseconds) }
        }
        return 0
    }
}
