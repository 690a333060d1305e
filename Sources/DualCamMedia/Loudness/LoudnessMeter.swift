import CEbur128
import Glibc

/// An EBU R128 meter (libebur128): integrated loudness (gated, LUFS), short-term loudness
/// (the last 3 s) and true peak (dBTP, 4× oversampled), over interleaved float samples.
public final class LoudnessMeter {
    // Invariant: owned by this object alone, used from one thread at a time (the renderer's).
    private var state: UnsafeMutablePointer<ebur128_state>?
    public let channels: Int
    public let sampleRate: Int
    private let context: String

    public init(channels: Int, sampleRate: Int, context: String) throws(EBUR128Error) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.context = context
        // libebur128 does not refuse every impossible format itself (no channels crashes it).
        guard (1...64).contains(channels), (8000...384_000).contains(sampleRate) else {
            throw EBUR128Error(code: 0, call: "ebur128_init(\(channels) channels, \(sampleRate) Hz)", context: context)
        }
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_S.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue)
        guard let made = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else {
            throw EBUR128Error(code: 0, call: "ebur128_init(\(channels) channels, \(sampleRate) Hz)", context: context)
        }
        state = made
    }

    deinit { if state != nil { ebur128_destroy(&state) } }

    /// Adds interleaved frames (`channels` samples each).
    public func add(_ samples: [Float]) throws(EBUR128Error) {
        let frames = samples.count / channels
        guard frames > 0 else { return }
        let code = samples.withUnsafeBufferPointer { ebur128_add_frames_float(state, $0.baseAddress, frames) }
        try ebur128Check(code, "ebur128_add_frames_float", context)
    }

    /// Integrated loudness so far in LUFS; nil while nothing is above the gates (silence).
    public func integrated() throws(EBUR128Error) -> Double? {
        var value = 0.0
        try ebur128Check(ebur128_loudness_global(state, &value), "ebur128_loudness_global", context)
        return value.isFinite ? value : nil
    }

    /// The last 3 s in LUFS; nil while silent.
    public func shortTerm() throws(EBUR128Error) -> Double? {
        var value = 0.0
        try ebur128Check(ebur128_loudness_shortterm(state, &value), "ebur128_loudness_shortterm", context)
        return value.isFinite ? value : nil
    }

    /// The highest true peak over every channel so far, in dBTP (nil while silent).
    public func truePeak() throws(EBUR128Error) -> Double? {
        var highest = 0.0
        for channel in 0..<channels {
            var value = 0.0
            try ebur128Check(ebur128_true_peak(state, UInt32(channel), &value), "ebur128_true_peak", context)
            highest = max(highest, value)
        }
        guard highest > 0 else { return nil }
        return 20 * log10(highest)
    }
}
