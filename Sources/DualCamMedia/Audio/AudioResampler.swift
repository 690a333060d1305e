import CFFmpeg
import Glibc

/// Interleaved Float in, interleaved Float out, through libswresample. Besides converting
/// rates, it stretches or squeezes each chunk by a few samples (swr_set_compensation),
/// which is how a sound card's rate error is taken out without audible steps: the
/// filter resamples continuously instead of dropping or repeating samples. Not
/// thread-safe.
public final class AudioResampler {
    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int
    private var context: OpaquePointer?
    /// Output samples the filter has produced, per channel.
    public private(set) var produced: Int64 = 0
    /// Input samples taken, per channel: the natural output of a chunk is counted from
    /// the total, so that at 44.1 → 48 kHz (1114.56 out per 1024 in) the rounding of each
    /// chunk does not add up to a drift (it did: 0.44 samples a chunk, 400 ppm).
    private var consumed: Int64 = 0

    public init(inputRate: Int, outputRate: Int, channels: Int) throws {
        var outLayout = AVChannelLayout()
        var inLayout = AVChannelLayout()
        dc_default_channel_layout(&outLayout, Int32(channels))
        dc_default_channel_layout(&inLayout, Int32(channels))
        defer {
            av_channel_layout_uninit(&outLayout)
            av_channel_layout_uninit(&inLayout)
        }
        var swr: OpaquePointer?
        try check(swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLT, Int32(outputRate),
                                      &inLayout, AV_SAMPLE_FMT_FLT, Int32(inputRate), 0, nil),
                  "swr_alloc_set_opts2", detail: "\(inputRate) → \(outputRate) Hz, \(channels) ch")
        // Compensation needs the resampling filter even when the rates are equal.
        av_opt_set_int(UnsafeMutableRawPointer(swr), "flags", Int64(SWR_FLAG_RESAMPLE), 0)
        let result = swr_init(swr)
        if result < 0 {
            swr_free(&swr)
            throw FFmpegError(code: result, call: "swr_init", detail: "\(inputRate) → \(outputRate) Hz")
        }
        context = swr
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
    }

    deinit { swr_free(&context) }

    /// Converts `input` so that, over time, it becomes `outputCount` samples per channel.
    /// A chunk may come out a few samples short or long of that (the filter's delay);
    /// the difference is carried, not lost, so positions stay exact on average.
    public func convert(_ input: [Float], outputCount: Int) throws -> [Float] {
        let inCount = input.count / channels
        let naturalBefore = consumed * Int64(outputRate) / Int64(inputRate)
        consumed += Int64(inCount)
        let natural = Int(consumed * Int64(outputRate) / Int64(inputRate) - naturalBefore)
        let delta = outputCount - natural
        if delta != 0, outputCount > 0 {
            try check(swr_set_compensation(context, Int32(delta), Int32(outputCount)), "swr_set_compensation",
                      detail: "\(delta) samples over \(outputCount)")
        }
        let capacity = outputCount + 256
        var output = [Float](repeating: 0, count: capacity * channels)
        let made: Int32 = try input.withUnsafeBufferPointer { source in
            try output.withUnsafeMutableBufferPointer { target in
                var inPlane: UnsafePointer<UInt8>? = UnsafeRawPointer(source.baseAddress).map { $0.assumingMemoryBound(to: UInt8.self) }
                var outPlane: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(target.baseAddress!).assumingMemoryBound(to: UInt8.self)
                return try check(swr_convert(context, &outPlane, Int32(capacity), &inPlane, Int32(inCount)),
                                 "swr_convert", detail: "\(inCount) samples in")
            }
        }
        output.removeLast((capacity - Int(made)) * channels)
        produced += Int64(made)
        return output
    }
}
