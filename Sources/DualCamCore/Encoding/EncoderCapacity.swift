/// What a node can encode, measured with the fastest preset at several picture sizes: the
/// answer to "what would fit here" when the size and rate asked for do not.
public struct EncoderCapacity: Sendable, Equatable {
    /// The fastest preset's frames per second at each size measured, largest first.
    public var speeds: [(width: Int, height: Int, framesPerSecond: Double)]

    public init(speeds: [(width: Int, height: Int, framesPerSecond: Double)]) {
        self.speeds = speeds.sorted { $0.width * $0.height > $1.width * $1.height }
    }

    public static func == (a: EncoderCapacity, b: EncoderCapacity) -> Bool {
        a.speeds.elementsEqual(b.speeds) { $0.width == $1.width && $0.height == $1.height && $0.framesPerSecond == $1.framesPerSecond }
    }

    /// The sizes measured below `width`x`height`, for a node that cannot carry that size:
    /// the product's standard sizes of the same shape, down to 640x360.
    public static func smallerSizes(width: Int, height: Int) -> [(width: Int, height: Int)] {
        CaptureModeFit.standardSizes.filter { $0.width * $0.height < width * height }
    }

    /// Every mode that fits with the headroom: per size, the fastest standard rate (no
    /// faster than `upTo`) the measured speed carries. Largest picture first.
    public func modesThatFit(upTo rate: FrameRate, headroom: Double = PresetChoice.headroom) -> [CaptureMode] {
        speeds.compactMap { entry in
            let carried = entry.framesPerSecond / headroom
            let rates = CaptureModeFit.standardRates + [FrameRate(20), FrameRate(15), FrameRate(10)]
            guard let fitting = rates.first(where: { $0.framesPerSecond <= min(carried, rate.framesPerSecond) }) else {
                return nil
            }
            return CaptureMode(width: entry.width, height: entry.height, rate: fitting)
        }
    }

    /// During a take that lags at the fastest preset, needing `load` of each frame's time:
    /// what would fit at the `target` load, estimated by scaling (encode time goes with
    /// pixels and frames), as
    /// "1280x720 at 30 fps or 1920x1080 at 20 fps"; nil when nothing standard would.
    public static func estimatedAdvice(width: Int, height: Int, rate: FrameRate, load: Double,
                                       aimingAt target: Double = PresetGovernor.Settings().busyLimit) -> String? {
        guard load > 0 else { return nil }
        var options: [String] = []
        let area = Double(width * height) * target / load
        if let size = CaptureModeFit.standardSizes.first(where: { Double($0.width * $0.height) <= area }) {
            options.append("\(size.width)x\(size.height) at \(rate.decimalText) fps")
        }
        let carried = rate.framesPerSecond * target / load
        if let slower = (CaptureModeFit.standardRates + [FrameRate(20), FrameRate(15), FrameRate(10)])
            .first(where: { $0.framesPerSecond <= carried }) {
            options.append("\(width)x\(height) at \(slower.decimalText) fps")
        }
        return options.isEmpty ? nil : options.joined(separator: " or ")
    }

    /// The refusal's advice, e.g. "1280x720 at 30 fps or 960x540 at 30 fps"; nil when
    /// nothing measured fits.
    public func advice(upTo rate: FrameRate, headroom: Double = PresetChoice.headroom) -> String? {
        let modes = modesThatFit(upTo: rate, headroom: headroom)
        guard !modes.isEmpty else { return nil }
        // The largest size at the full rate, and the largest at each lower rate: more
        // would be a list nobody reads.
        var shown: [CaptureMode] = []
        for mode in modes where !shown.contains(where: { $0.rate == mode.rate }) { shown.append(mode) }
        return shown.map { "\($0.width)x\($0.height) at \($0.rate.decimalText) fps" }.joined(separator: " or ")
    }
}
