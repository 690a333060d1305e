import CAlsa
import Glibc

/// One period of captured sound: interleaved samples scaled to −1…1, and the
/// CLOCK_MONOTONIC instant its first sample was captured.
public struct ALSAChunk: Sendable {
    public var samples: [Float]
    public var firstSampleNanoseconds: Int64
    /// Samples were lost just before this chunk (an overrun): its instant jumps ahead.
    public var overrun: Bool
}

/// Captures from one ALSA PCM in blocking reads of one period.
///
/// Instants come from the driver's own timestamp of its hardware position
/// (snd_pcm_htimestamp, CLOCK_MONOTONIC like V4L2 buffers): the sample at the hardware
/// pointer was captured then, and every sample before it one period of the rate earlier,
/// so the first sample of a chunk is `(read + still available)` samples before it. Where
/// a plugin gives no timestamp, the read's return instant stands in. Not thread-safe.
public final class ALSACapture {
    public let device: String
    public let sampleRate: Int
    public let channels: Int
    public let bits: Int
    public let periodFrames: Int
    public let formatName: String
    private var pcm: OpaquePointer?
    private let format: snd_pcm_format_t
    private var raw: [UInt8]
    /// Overruns so far: each lost what the card captured while nobody read.
    public private(set) var overruns = 0

    /// `bits` 16 or 24; 24-bit takes whichever of S24_3LE, S32_LE or S24_LE the device offers.
    public init(device: String, sampleRate: Int, channels: Int, bits: Int, periodFrames: Int = 1024) throws {
        guard bits == 16 || bits == 24 else {
            throw ALSAError(code: 0, call: "configure", device: device, detail: "\(bits)-bit samples: use 16 or 24")
        }
        var handle: OpaquePointer?
        try alsaCheck(snd_pcm_open(&handle, device, SND_PCM_STREAM_CAPTURE, 0), "snd_pcm_open", device: device)
        self.pcm = handle
        self.device = device
        self.channels = channels
        self.bits = bits
        do {
            let chosen = try Self.configure(handle!, device: device, rate: sampleRate, channels: channels, bits: bits,
                                            period: periodFrames)
            self.sampleRate = chosen.rate
            self.periodFrames = chosen.period
            self.format = chosen.format
            self.formatName = String(cString: snd_pcm_format_name(chosen.format))
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        raw = [UInt8](repeating: 0, count: periodFrames * channels * 4)
        try alsaCheck(snd_pcm_start(handle), "snd_pcm_start", device: device)
    }

    deinit { if let pcm { snd_pcm_close(pcm) } }

    private static func configure(_ pcm: OpaquePointer, device: String, rate: Int, channels: Int, bits: Int,
                                  period: Int) throws -> (rate: Int, period: Int, format: snd_pcm_format_t) {
        var hw: OpaquePointer?
        try alsaCheck(snd_pcm_hw_params_malloc(&hw), "snd_pcm_hw_params_malloc", device: device)
        defer { snd_pcm_hw_params_free(hw) }
        try alsaCheck(snd_pcm_hw_params_any(pcm, hw), "snd_pcm_hw_params_any", device: device)
        try alsaCheck(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "set_access", device: device)
        let candidates = bits == 16 ? [SND_PCM_FORMAT_S16_LE] : [SND_PCM_FORMAT_S24_3LE, SND_PCM_FORMAT_S32_LE, SND_PCM_FORMAT_S24_LE]
        guard let format = candidates.first(where: { snd_pcm_hw_params_test_format(pcm, hw, $0) == 0 }) else {
            throw ALSAError(code: -EINVAL, call: "snd_pcm_hw_params_set_format", device: device,
                            detail: "no \(bits)-bit little-endian sample format offered")
        }
        try alsaCheck(snd_pcm_hw_params_set_format(pcm, hw, format), "snd_pcm_hw_params_set_format", device: device)
        try alsaCheck(snd_pcm_hw_params_set_channels(pcm, hw, UInt32(channels)), "snd_pcm_hw_params_set_channels",
                      device: device, detail: "\(channels) channels")
        // Exactly the rate asked for: ALSA's "near" would silently record another one.
        try alsaCheck(snd_pcm_hw_params_set_rate(pcm, hw, UInt32(rate), 0), "snd_pcm_hw_params_set_rate",
                      device: device, detail: "\(rate) Hz")
        var frames = snd_pcm_uframes_t(period)
        var direction: Int32 = 0
        try alsaCheck(snd_pcm_hw_params_set_period_size_near(pcm, hw, &frames, &direction), "set_period_size_near", device: device)
        // Half a second of buffer rides out a busy encoder without an overrun.
        var buffer = snd_pcm_uframes_t(max(Int(frames) * 4, rate / 2))
        try alsaCheck(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer), "set_buffer_size_near", device: device)
        try alsaCheck(snd_pcm_hw_params(pcm, hw), "snd_pcm_hw_params", device: device,
                      detail: "\(rate) Hz, \(channels) ch, \(String(cString: snd_pcm_format_name(format)))")

        var sw: OpaquePointer?
        try alsaCheck(snd_pcm_sw_params_malloc(&sw), "snd_pcm_sw_params_malloc", device: device)
        defer { snd_pcm_sw_params_free(sw) }
        try alsaCheck(snd_pcm_sw_params_current(pcm, sw), "snd_pcm_sw_params_current", device: device)
        try alsaCheck(snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE), "set_tstamp_mode", device: device)
        try alsaCheck(snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC), "set_tstamp_type", device: device)
        try alsaCheck(snd_pcm_sw_params(pcm, sw), "snd_pcm_sw_params", device: device)
        return (rate, Int(frames), format)
    }

    /// Blocks until one period is captured.
    public func read() throws -> ALSAChunk {
        var overrun = false
        let bytesPerSample = Int(snd_pcm_format_physical_width(format)) / 8
        let needed = periodFrames * channels * bytesPerSample
        if raw.count < needed { raw = [UInt8](repeating: 0, count: needed) }
        var got = 0
        while got < periodFrames {
            let n = raw.withUnsafeMutableBytes { buffer in
                snd_pcm_readi(pcm, buffer.baseAddress! + got * channels * bytesPerSample, snd_pcm_uframes_t(periodFrames - got))
            }
            if n == -Int(EPIPE) || n == -Int(ESTRPIPE) {
                // Overrun: what was captured meanwhile is gone; the gap shows in the instants.
                overrun = true
                overruns += 1
                try alsaCheck(snd_pcm_recover(pcm, Int32(n), 1), "snd_pcm_recover", device: device)
                try alsaCheck(snd_pcm_start(pcm), "snd_pcm_start", device: device)
                got = 0
                continue
            }
            if n == -Int(EAGAIN) || n == -Int(EINTR) { continue }
            try alsaCheck(Int32(clamping: n), "snd_pcm_readi", device: device)
            got += n
        }
        return ALSAChunk(samples: convert(count: periodFrames * channels),
                         firstSampleNanoseconds: firstSampleInstant(), overrun: overrun)
    }

    private func firstSampleInstant() -> Int64 {
        var available: snd_pcm_uframes_t = 0
        var stamp = timespec()
        var at: Int64
        if snd_pcm_htimestamp(pcm, &available, &stamp) == 0, stamp.tv_sec != 0 || stamp.tv_nsec != 0 {
            at = Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec)
        } else {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            at = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
            let avail = snd_pcm_avail(pcm)
            available = avail > 0 ? snd_pcm_uframes_t(avail) : 0
        }
        return at - (Int64(periodFrames) + Int64(available)) * 1_000_000_000 / Int64(sampleRate)
    }

    /// Raw pointers throughout: this runs for every sample and must stay cheap even in
    /// a debug build on a small machine.
    private func convert(count: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        let format = self.format
        out.withUnsafeMutableBufferPointer { target in
            raw.withUnsafeBytes { bytes in
                let b = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                switch format {
                case SND_PCM_FORMAT_S16_LE:
                    for i in 0..<count {
                        let v = Int16(bitPattern: UInt16(b[2 * i]) | UInt16(b[2 * i + 1]) << 8)
                        target[i] = Float(v) * (1 / 32768)
                    }
                case SND_PCM_FORMAT_S24_3LE:
                    for i in 0..<count {
                        let v = Int32(b[3 * i]) | Int32(b[3 * i + 1]) << 8 | Int32(Int8(bitPattern: b[3 * i + 2])) << 16
                        target[i] = Float(v) * (1 / 8_388_608)
                    }
                default:
                    // S32_LE, or S24_LE: 24 bits in the low three bytes, sign in bit 23.
                    let low24 = format == SND_PCM_FORMAT_S24_LE
                    for i in 0..<count {
                        let u = UInt32(b[4 * i]) | UInt32(b[4 * i + 1]) << 8 | UInt32(b[4 * i + 2]) << 16 | UInt32(b[4 * i + 3]) << 24
                        let v = Int32(bitPattern: low24 ? u << 8 : u)
                        target[i] = Float(v) * (1 / 2_147_483_648)
                    }
                }
            }
        }
        return out
    }
}
