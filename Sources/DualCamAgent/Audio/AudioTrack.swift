import DualCamCore
import DualCamMedia
import Foundation
import NIOConcurrencyHelpers

/// A node's sound, recorded beside its pictures on a thread of its own: a microphone is
/// paced by its own clock and must never wait for the video encoder.
///
/// Each period is stamped on the shared clock like a frame, placed on the session's
/// sample grid by the core's drift corrector (the card's rate error is taken out by
/// resampling, so sound and pictures stay together however long the session), encoded
/// to AAC and queued; the encode thread takes the packets into the segment being written.
/// An encoded packet of the sound track, or of its uncompressed copy.
struct AudioPacket: Sendable {
    var packet: EncodedPacket
    var lossless: Bool
}

final class AudioTrack: Sendable {
    /// Every node's track, whatever its card's rate: video's rate, the only one SMPTE
    /// 302M carries (the uncompressed copy), and one rate for the coordinator to mix
    /// without converting. A 44.1 kHz card is resampled in the same pass that takes out
    /// its drift.
    static let outputRate = 48_000
    let parameters: AudioParameters
    /// The uncompressed copy's format; nil when the node keeps none (`--no-lossless-audio`).
    let losslessParameters: AudioParameters?
    let settings: AudioSettings
    private let state = NIOLockedValueBox(State())
    private let done = DispatchSemaphore(value: 0)
    private let handoff: Handoff
    private let clock: AgentClock
    private let t0Shared: SharedInstant
    /// The sample position (from T0) the track starts at: 0, or later after a restart.
    private let startPosition: Int64

    private struct State {
        var ready: [AudioPacket] = []
        var ended = false
        var error: String?
        var sourceDescription = ""
        /// Samples at or after this shared instant are not recorded.
        var stopShared: SharedInstant?
        /// Periods whose timestamps were set aside as late (see AudioDriftCorrector).
        var lateStamps = 0
        var overruns = 0
    }

    /// `startShared` is where recording begins (T0, or the rejoin instant).
    private let stats: PipelineStats

    init(settings: AudioSettings, clock: AgentClock, t0Shared: SharedInstant, startShared: SharedInstant, stats: PipelineStats) throws {
        self.settings = settings
        self.stats = stats
        self.clock = clock
        self.t0Shared = t0Shared
        let rate = Int64(Self.outputRate)
        startPosition = max(0, (startShared - t0Shared) * rate / 1_000_000_000)
        let encoder = try AudioEncoder(sampleRate: Self.outputRate, channels: settings.channels,
                                       bitRate: settings.bitRate, startPosition: startPosition)
        parameters = encoder.parameters
        let pcm = settings.lossless
            ? try AudioEncoder(codec: .smpte302m(bits: settings.bits), sampleRate: Self.outputRate,
                               channels: settings.channels, startPosition: startPosition)
            : nil
        losslessParameters = pcm?.parameters
        let source: any AudioSource
        // A simulated card starts a period early, so that its first one covers T0.
        let lead = Int64(SyntheticAudioSource.periodFrames) * 1_000_000_000 / rate
        let startLocal = (clock.estimate?.local(fromShared: startShared - lead) ?? clock.now).nanoseconds
        switch settings.source {
        case .none, .synthetic:
            source = SyntheticAudioSource(sampleRate: settings.sampleRate, channels: settings.channels,
                                          ratePPM: settings.simulatedRatePPM, clock: clock, startLocalNanoseconds: startLocal)
        case .file(let path):
            source = try FileAudioSource(path: path, settings: settings, clock: clock, startLocalNanoseconds: startLocal,
                                         t0Shared: t0Shared)
        case .alsa(let device):
            source = try MicrophoneSource(device: device, settings: settings)
        }
        handoff = Handoff(source: source, encoder: encoder, lossless: pcm)
        state.withLockedValue { $0.sourceDescription = source.description }
    }

    var sourceDescription: String { state.withLockedValue { $0.sourceDescription } }

    func start() {
        let thread = Thread { [self] in
            do { try run() } catch { state.withLockedValue { $0.error = "\(error)" } }
            state.withLockedValue { $0.ended = true }
            done.signal()
        }
        thread.name = "dualcam-audio"
        thread.start()
    }

    /// Ends the track at `instant` (the earliest one asked for wins): the session's stop,
    /// or where the pictures ended when they ended otherwise.
    func stop(atShared instant: SharedInstant) {
        state.withLockedValue { s in
            if let current = s.stopShared, current <= instant { return }
            s.stopShared = instant
        }
    }

    private var stopShared: SharedInstant? { state.withLockedValue { $0.stopShared } }

    /// Packets ready whose pts is before `pts`, in order within each stream.
    func take(before pts: Int64) -> [AudioPacket] {
        state.withLockedValue { s in
            let taken = s.ready.filter { $0.packet.ptsNanoseconds < pts }
            s.ready.removeAll { $0.packet.ptsNanoseconds < pts }
            return taken
        }
    }

    /// Waits for the thread to end (it does once the stop instant is captured, or the
    /// source failed) and returns the rest, plus the error that ended it, if any.
    func finish() -> (packets: [AudioPacket], error: String?, lateStamps: Int, overruns: Int) {
        done.wait()
        return state.withLockedValue { s in
            defer { s.ready = [] }
            return (s.ready, s.error, s.lateStamps, s.overruns)
        }
    }

    private func run() throws {
        var source = handoff.source
        let encoder = handoff.encoder
        let lossless = handoff.lossless
        let rate = Self.outputRate
        let channels = settings.channels
        let resampler = try AudioResampler(inputRate: source.sampleRate, outputRate: rate, channels: channels)
        // The corrector's sample 0 is the track's first position, whatever T0 was.
        let gridStart = t0Shared + startPosition * 1_000_000_000 / Int64(rate)
        var corrector = AudioDriftCorrector(inputRate: source.sampleRate, outputRate: rate, t0SharedNanoseconds: gridStart.nanoseconds)
        let gain = AudioLevelMeter.factor(gainDB: settings.gainDB)
        while true {
            var chunk = try source.next()
            guard let estimate = clock.estimate else { continue }
            let shared = estimate.shared(fromLocal: LocalInstant(nanoseconds: chunk.localFirstSampleNanoseconds))
            let count = chunk.samples.count / channels
            let endShared = shared + Int64(count) * 1_000_000_000 / Int64(source.sampleRate)
            if endShared <= gridStart { continue }
            if let stop = stopShared, shared >= stop { break }
            if gain != 1 { for i in chunk.samples.indices { chunk.samples[i] = max(-1, min(1, chunk.samples[i] * gain)) } }
            stats.meterAudio(chunk.samples)
            let plan = corrector.plan(inputSamples: count, firstSampleSharedNanoseconds: shared.nanoseconds,
                                      discontinuity: chunk.discontinuity)
            let overruns = source.overruns
            state.withLockedValue {
                $0.lateStamps = corrector.outliersIgnored
                $0.overruns = overruns
            }
            var out = [Float](repeating: 0, count: plan.silenceBefore * channels)
            if plan.output > 0, plan.dropInput < count {
                out += try resampler.convert(Array(chunk.samples[(plan.dropInput * channels)...]), outputCount: plan.output)
            }
            if let stop = stopShared {
                // The track ends where the pictures do.
                let last = (stop - t0Shared) * Int64(rate) / 1_000_000_000
                let room = max(0, Int(last - encoder.position)) * channels
                if out.count > room { out.removeLast(out.count - room) }
            }
            queue(try encoder.encode(out), lossless: false)
            if let lossless { queue(try lossless.encode(out), lossless: true) }
        }
        queue(try encoder.flush(), lossless: false)
        if let lossless { queue(try lossless.flush(), lossless: true) }
    }

    /// TS cannot store a time before 0, so the encoder's priming packet (before T0) is
    /// not kept; the price is that the first 21 ms of a session decode faded in.
    private func queue(_ packets: [EncodedPacket], lossless: Bool) {
        let kept = packets.filter { $0.ptsNanoseconds >= 0 }.map { AudioPacket(packet: $0, lossless: lossless) }
        if !kept.isEmpty { state.withLockedValue { $0.ready += kept } }
    }
}

/// Moves the source and encoders (not Sendable: a device handle, codec state) to the
/// audio thread.
private final class Handoff: @unchecked Sendable {
    // Invariant: written once at init, then used only by the one audio thread.
    let source: any AudioSource
    let encoder: AudioEncoder
    let lossless: AudioEncoder?
    init(source: any AudioSource, encoder: AudioEncoder, lossless: AudioEncoder?) {
        self.source = source
        self.encoder = encoder
        self.lossless = lossless
    }
}
