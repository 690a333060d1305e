import DualCamCore

/// Audio/video sync as anyone can measure it from a file made of synthetic sources: the
/// sound's tone bursts start at whole seconds of the true clock, and the pictures' DCTC
/// codes say when each frame was captured on that clock, so each burst onset minus the
/// file time at which the pictures cross the same second is the A/V offset (TIMECODE.md).
public struct AVSyncMeasurement: Sendable, Codable {
    /// Burst onset minus DCTC second crossing, per second found in both, in order;
    /// positive: the sound is late.
    public var offsetsNanoseconds: [Int64]
    public var burstCount: Int
    public var crossingCount: Int

    public var worstNanoseconds: Int64 { offsetsNanoseconds.map { abs($0) }.max() ?? 0 }
    public var meanNanoseconds: Int64 {
        offsetsNanoseconds.isEmpty ? 0 : offsetsNanoseconds.reduce(0, +) / Int64(offsetsNanoseconds.count)
    }
}

public enum AVSyncProbe {
    /// `readCode` reads a picture's DCTC (the default reads a full-frame pattern; a
    /// composite passes one that reads a camera's slot).
    public static func measure(path: String, readCode: (YUV420Image) -> UInt32 = { DCTC.read($0) }) throws -> AVSyncMeasurement {
        guard let track = try AudioTrackReader.read(path: path) else {
            throw FFmpegError.invalid("AVSyncProbe.measure", path: path, "the file has no sound track")
        }
        let onsets = BurstOnsets.find(samples: track.mono, sampleRate: track.sampleRate)
            .map { $0 + track.startNanoseconds }
        let crossings = try secondCrossings(path: path, readCode: readCode)
        var offsets: [Int64] = []
        for crossing in crossings {
            // Bursts are a second apart: the nearest within half a second is this second's.
            guard let onset = onsets.min(by: { abs($0 - crossing) < abs($1 - crossing) }),
                  abs(onset - crossing) < 500_000_000 else { continue }
            offsets.append(onset - crossing)
        }
        return AVSyncMeasurement(offsetsNanoseconds: offsets, burstCount: onsets.count, crossingCount: crossings.count)
    }

    /// File times at which the pictures' true clock crosses a whole second: for the first
    /// frame of each second, its pts minus how far into the second it was captured.
    static func secondCrossings(path: String, readCode: (YUV420Image) -> UInt32) throws -> [Int64] {
        let ticksPerSecond = UInt32(1_000_000_000 / DCTC.tickNanoseconds)
        var previous: UInt32?
        var crossings: [Int64] = []
        try MediaProbe.forEachFrame(path: path) { frame in
            let code = readCode(frame.image)
            defer { previous = code }
            // A repeated or "no signal" frame, or a misread, is not a capture instant.
            guard let last = previous else { return }
            let step = DCTC.differenceNanoseconds(code, last)
            guard step > 0, step < 200_000_000 else { return }
            if code / ticksPerSecond != last / ticksPerSecond {
                crossings.append(frame.ptsNanoseconds - Int64(code % ticksPerSecond) * DCTC.tickNanoseconds)
            }
        }
        return crossings
    }
}
