import DualCamCore
import DualCamNet

/// The encode thread's side of `--preset auto` during a take: feeds the governor, and
/// where it decides, reopens the encoder and has the segment cut there.
struct PresetSteering {
    private var governor: PresetGovernor?
    private var lostSeen = 0
    private let settings: RecordingSettings
    private let stats: PipelineStats

    init(source: PreparedSource, settings: RecordingSettings, stats: PipelineStats) {
        self.settings = settings
        self.stats = stats
        let maker = source.encoder.maker
        if let measured = source.automatic {
            // The hardware encoder has no presets to step through.
            if let chosen = measured.outcome.preset, chosen != "hardware" {
                governor = PresetGovernor(chosen: chosen, rate: settings.rate, speeds: measured.speeds, settings: Self.governing(settings))
            }
        } else if settings.isAutomaticPreset, !maker.isHardware, let preset = maker.preset {
            // Unmeasured (an agent rejoining after a restart opens its source in the take):
            // the governor still steps, estimating the presets' speeds.
            governor = PresetGovernor(chosen: preset, rate: settings.rate, speeds: [], settings: Self.governing(settings))
        }
        stats.update { $0.preset = maker.preset ?? "" }
    }

    /// A step faster aims under the load the node's headroom leaves to the encoder, and a
    /// step back needs the same margin under that as by default.
    static func governing(_ settings: RecordingSettings) -> PresetGovernor.Settings {
        var governing = PresetGovernor.Settings()
        governing.targetLoad = 1 / settings.presetHeadroom
        governing.calmLoad *= PresetChoice.headroom / settings.presetHeadroom
        return governing
    }

    /// Before a frame is encoded: at a segment `boundary`, or mid-segment when the queue
    /// cannot wait, asks the governor; on a switch, drains and reopens the encoder, asks
    /// `segments` to cut at the next keyframe, and returns the switch (the caller makes
    /// this frame a keyframe).
    mutating func beforeFrame(boundary: Bool, pts: Int64, now: Int64, maker: PacketMaker,
                              segments: inout SegmentSink) throws -> PresetSwitchRecord? {
        guard var g = governor else { return nil }
        defer { governor = g }
        let lost = stats.snapshot.backlogDrops
        if lost > lostSeen { g.framesLost(lost - lostSeen) }
        lostSeen = lost
        guard boundary || g.isUrgent else { return nil }
        var change: PresetSwitchRecord?
        if case .switchTo(let preset, let reason) = g.segmentBoundary(now: now) {
            if !boundary { segments.cutAtNextKeyframe() }
            let rung = { (name: String?) in name.flatMap { PresetChoice.ladder.firstIndex(of: $0) } ?? 0 }
            let stepsFaster = rung(preset) < rung(maker.preset)
            if let parameters = maker.parameters {
                try segments.store(try maker.switchEncoder(to: maker.encoderName, preset: preset), parameters: parameters)
            }
            change = PresetSwitchRecord(segmentIndex: segments.nextIndex, atPtsNanoseconds: pts, preset: preset, reason: reason)
            // The measurement was optimistic for this node as it is now: the next take measures again.
            if stepsFaster { EncoderProbe.forget(settings) }
        }
        let shortfall = g.shortfall.map { Self.shortfallText($0, load: g.shortfallLoad ?? 1, settings: settings) }
        stats.update {
            $0.preset = g.current
            $0.encoderShortfall = shortfall
        }
        return change
    }

    mutating func frameEncoded(nanoseconds: Int64, latency: Int64, queue: FrameQueue) {
        governor?.frameEncoded(encodeNanoseconds: nanoseconds, queueDepth: queue.depth, queueCapacity: queue.capacity,
                               latencyNanoseconds: latency)
    }

    /// What the status says while even the fastest preset lags (frames are then dropped):
    /// the shortfall and what size or rate would fit.
    static func shortfallText(_ shortfall: String, load: Double, settings: RecordingSettings) -> String {
        let text = "the node cannot keep up: \(shortfall) at \(settings.width)x\(settings.height) \(settings.rate.decimalText) fps"
        guard let advice = EncoderCapacity.estimatedAdvice(width: settings.width, height: settings.height, rate: settings.rate,
                                                           load: load) else { return text + "; use a faster node" }
        return text + "; about what would fit (scaled from this load): " + advice
    }
}
