import NIOConcurrencyHelpers

/// Counters the capture and encode threads update and the telemetry reporter reads.
final class PipelineStats: Sendable {
    struct Counters: Sendable {
        var captured = 0
        /// Where the first frame's capture interval began (its instant less one frame
        /// period): the first second's rates count from here, not from the reporter's
        /// start, which precedes T0 by the countdown's remainder.
        var capturingSinceLocal: Int64?
        var encoded = 0
        /// Lost before the agent saw them: driver sequence gaps, late synthetic frames.
        var sourceDrops = 0
        /// Dropped because the encoder fell behind (queue full).
        var backlogDrops = 0
        /// Passed-through H.264 before the first keyframe, which no one could decode.
        var beforeKeyframeDrops = 0
        var queueDepth = 0
        /// Capture instant to packet out, the last frame's.
        var encodeLatencyNanoseconds: Int64 = 0
        var segments = 0
        /// Segments the coordinator acknowledged as durably held (a set: an ack may be
        /// repeated after a reconnect).
        var acknowledged: Set<Int> = []
        /// The encoder preset in effect, and (`--preset auto`) what falls short when even
        /// the fastest cannot keep up.
        var preset = ""
        var encoderShortfall: String?
    }

    private let box = NIOLockedValueBox(Counters())
    /// Sound levels since the telemetry last read them; nil when the node records no sound.
    private let meter = NIOLockedValueBox<AudioLevelMeter?>(nil)

    func meterAudio(_ samples: [Float]) {
        meter.withLockedValue { m in
            if m == nil { m = AudioLevelMeter() }
            m!.add(samples)
        }
    }

    func readAudioLevels() -> (peakDBFS: Double, rmsDBFS: Double)? {
        meter.withLockedValue { $0?.read() }
    }

    func update(_ change: (inout Counters) -> Void) { box.withLockedValue(change) }
    var snapshot: Counters { box.withLockedValue { $0 } }
}
