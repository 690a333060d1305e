/// How fast one encoder preset ran on a node's own pictures: frames encoded per second of
/// wall time, with the node's other work (capture, the other agents) running beside it.
public struct PresetSpeed: Sendable, Hashable, CustomStringConvertible {
    public var preset: String
    public var framesPerSecond: Double

    public init(preset: String, framesPerSecond: Double) {
        self.preset = preset
        self.framesPerSecond = framesPerSecond
    }

    public var description: String { "\(preset) \(Int(framesPerSecond.rounded())) fps" }
}

/// Which x264 preset a node can carry (`--preset auto`): the slowest, best-compressing one
/// that still encodes `headroom` times faster than the camera delivers. The rest of the
/// node's time is for capture, MJPEG decoding, sound, preview and upload, and for the
/// spikes (a keyframe, a busy neighbour) a queue of a few frames must absorb.
public enum PresetChoice {
    /// The presets `auto` chooses among, fastest first. Slower ones than `medium` gain a
    /// few per cent of bitrate for several times the CPU: not worth it on a live node.
    public static let ladder = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium"]
    /// Real time × this is what a chosen preset must sustain.
    public static let headroom = 1.5

    public enum Outcome: Sendable, Equatable {
        /// `preset` sustains `speed` × real time (at least the headroom).
        case fits(preset: String, speed: Double)
        /// Even the fastest preset has less than the headroom but keeps real time: it is
        /// used, and the take may drop frames when the node gets busier.
        case tight(preset: String, speed: Double)
        /// The fastest preset cannot keep real time: nothing should be recorded.
        case cannot(speed: Double)

        public var preset: String? {
            switch self {
            case .fits(let preset, _), .tight(let preset, _): preset
            case .cannot: nil
            }
        }

        /// Encoded frames per second over the frames the camera delivers.
        public var speed: Double {
            switch self {
            case .fits(_, let speed), .tight(_, let speed), .cannot(let speed): speed
            }
        }
    }

    /// `speeds` need not cover the ladder: a measurement stops at the first preset that
    /// falls short, as every slower one would.
    public static func choose(_ speeds: [PresetSpeed], rate: FrameRate, headroom: Double = headroom) -> Outcome {
        let ordered = ladder.compactMap { name in speeds.first { $0.preset == name } }
        let fps = rate.framesPerSecond
        if let best = ordered.last(where: { $0.framesPerSecond >= fps * headroom }) {
            return .fits(preset: best.preset, speed: best.framesPerSecond / fps)
        }
        guard let fastest = ordered.first else { return .cannot(speed: 0) }
        let speed = fastest.framesPerSecond / fps
        return speed >= 1 ? .tight(preset: fastest.preset, speed: speed) : .cannot(speed: speed)
    }

    /// Whether a measurement going up the ladder should go on to the next preset.
    public static func worthTryingSlower(than last: PresetSpeed, rate: FrameRate, headroom: Double = headroom) -> Bool {
        last.framesPerSecond >= rate.framesPerSecond * headroom
    }

    /// The preset after `preset` on the ladder towards `faster` (or slower); nil at its end.
    public static func neighbour(of preset: String, faster: Bool) -> String? {
        guard let index = ladder.firstIndex(of: preset) else { return faster ? ladder.first : nil }
        let next = faster ? index - 1 : index + 1
        return ladder.indices.contains(next) ? ladder[next] : nil
    }
}
