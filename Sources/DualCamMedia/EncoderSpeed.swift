import DualCamCore
import Glibc

/// How fast an encoder runs here and now, on given pictures: the measurement behind
/// `--preset auto`, shared by the agent (its camera's pictures) and the coordinator (the
/// live composite's). Wall time, not CPU time: what matters is whether frames come out as
/// fast as they are needed on this machine as it is, with its other work beside it.
/// Blocking and CPU-bound: callers run it off Swift's cooperative pool.
public enum EncoderSpeed {
    /// Long enough to span several scheduler periods (a CPU quota's is 100 ms) and a few
    /// dozen frames, short enough that measuring six presets stays a few seconds.
    public static let windowNanoseconds: Int64 = 400_000_000
    public static let minimumFrames = 6
    /// A preset this slow is known to fall short without finishing its window.
    public static let longestNanoseconds: Int64 = 2_000_000_000

    /// Encodes `pictures` over and over for one window; frames per second of wall time,
    /// counting `extraNanosecondsPerFrame` (work every frame costs besides the encode: an
    /// MJPEG decode on a node, the cameras' decoding and the compositing on the
    /// coordinator). Under a CPU quota the window may have run free between two of the
    /// quota's stops: the process's CPU time over its share of the cores is then the
    /// longer, truer span.
    public static func framesPerSecond(_ settings: VideoEncoderSettings, _ pictures: [YUV420Image],
                                       extraNanosecondsPerFrame extra: Int64 = 0, clock: some TimeSource) throws -> Double {
        precondition(!pictures.isEmpty, "EncoderSpeed needs pictures to encode")
        let cores = CPUShare.cores()
        let encoder = try VideoEncoder(settings: settings)
        let period = settings.rate.periodNanoseconds
        var pts: Int64 = 0
        func encodeNext(_ index: Int) throws {
            _ = try encoder.encode(pictures[index % pictures.count], ptsNanoseconds: pts,
                                   forceKeyframe: index % max(settings.gopFrames, 1) == 0)
            pts += period
        }
        // x264's first frames fault in its buffers: not what a take pays per frame.
        for index in 0..<2 { try encodeNext(index) }
        let start = clock.now
        let cpuStart = CPUShare.processNanoseconds()
        var frames = 0
        var elapsed: Int64 = 0
        while (elapsed < windowNanoseconds || frames < minimumFrames) && elapsed < longestNanoseconds {
            try encodeNext(frames + 2)
            frames += 1
            elapsed = clock.now - start
        }
        let share = Int64(Double(CPUShare.processNanoseconds() - cpuStart) / cores)
        return Double(frames) * 1e9 / Double(max(elapsed, share) + Int64(frames) * max(extra, 0))
    }

    /// Each preset of `PresetChoice.ladder` from the fastest, until one falls short of the
    /// headroom at `rate` (every slower one would too). `settings.preset` is replaced.
    public static func ladder(_ settings: VideoEncoderSettings, _ pictures: [YUV420Image], rate: FrameRate,
                              headroom: Double = PresetChoice.headroom,
                              extraNanosecondsPerFrame extra: Int64 = 0, clock: some TimeSource) throws -> [PresetSpeed] {
        var base = settings
        var speeds: [PresetSpeed] = []
        for preset in PresetChoice.ladder {
            base.preset = preset
            let speed = PresetSpeed(preset: preset, framesPerSecond: try framesPerSecond(base, pictures, extraNanosecondsPerFrame: extra, clock: clock))
            speeds.append(speed)
            if !PresetChoice.worthTryingSlower(than: speed, rate: rate, headroom: headroom) { break }
        }
        return speeds
    }
}
