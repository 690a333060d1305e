/// A picture size and frame rate a session records at.
public struct CaptureMode: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var rate: FrameRate

    public init(width: Int, height: Int, rate: FrameRate) {
        self.width = width
        self.height = height
        self.rate = rate
    }

    public var description: String { "\(width)x\(height) at \(rate.decimalText) fps" }
}

/// The largest picture a camera delivers and its fastest rate at that size, as an agent
/// reports them (HelloAck capabilities). Zero means the agent did not say.
public struct CameraLimits: Sendable, Hashable, CustomStringConvertible {
    public var maxWidth: Int
    public var maxHeight: Int
    /// Whole frames per second (29.97 is reported as 30).
    public var maxFramesPerSecond: Int

    public init(maxWidth: Int, maxHeight: Int, maxFramesPerSecond: Int) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFramesPerSecond = maxFramesPerSecond
    }

    /// An agent that could not say (a camera unplugged, an agent from before limits).
    public static let unknown = CameraLimits(maxWidth: 0, maxHeight: 0, maxFramesPerSecond: 0)

    public var knowsSize: Bool { maxWidth > 0 && maxHeight > 0 }

    public func holds(width: Int, height: Int) -> Bool { !knowsSize || (width <= maxWidth && height <= maxHeight) }

    /// Half a frame per second of slack: a camera reporting 30 delivers 30000/1001.
    public func holds(_ rate: FrameRate) -> Bool {
        maxFramesPerSecond <= 0 || rate.framesPerSecond <= Double(maxFramesPerSecond) + 0.5
    }

    public var description: String {
        (knowsSize ? "\(maxWidth)x\(maxHeight)" : "any size") + (maxFramesPerSecond > 0 ? " at \(maxFramesPerSecond) fps" : "")
    }
}

/// Lowers a preset's mode to what every camera can deliver, so that "maximum quality"
/// means 4K60 where the cameras allow it and the most they allow elsewhere, instead of
/// pictures scaled up from a smaller camera (which cost bits and CPU and add nothing).
public enum CaptureModeFit {
    /// The product's sizes, largest first; all 16:9 like the composite.
    public static let standardSizes: [(width: Int, height: Int)] = [
        (3840, 2160), (2560, 1440), (1920, 1080), (1600, 900), (1280, 720), (960, 540), (640, 360),
    ]
    /// The product's rates, fastest first.
    public static let standardRates: [FrameRate] = [.fps60, .fps50, .fps30, .fps25, .fps24]

    /// The largest mode no larger than `wanted` that every camera holds.
    public static func fit(_ wanted: CaptureMode, to cameras: [CameraLimits]) -> CaptureMode {
        var mode = wanted
        if !cameras.allSatisfy({ $0.holds(width: wanted.width, height: wanted.height) }) {
            let candidate = standardSizes.first { size in
                size.width * size.height <= wanted.width * wanted.height
                    && cameras.allSatisfy { $0.holds(width: size.width, height: size.height) }
            }
            if let candidate {
                (mode.width, mode.height) = candidate
            } else {
                // A camera smaller than every standard size: its own largest picture.
                let known = cameras.filter(\.knowsSize)
                mode.width = known.map(\.maxWidth).min()! & ~1
                mode.height = known.map(\.maxHeight).min()! & ~1
            }
        }
        if !cameras.allSatisfy({ $0.holds(wanted.rate) }) {
            let slowest = cameras.map(\.maxFramesPerSecond).filter { $0 > 0 }.min()!
            mode.rate = standardRates.first { $0.framesPerSecond <= wanted.rate.framesPerSecond && $0.framesPerSecond <= Double(slowest) }
                ?? FrameRate(Int64(slowest))
        }
        return mode
    }

    /// What the user should hear about cameras that cannot deliver `mode` as asked.
    public static func shortfalls(_ mode: CaptureMode, cameras: [(name: String, limits: CameraLimits)]) -> [String] {
        cameras.compactMap { camera in
            var lacks: [String] = []
            if !camera.limits.holds(width: mode.width, height: mode.height) {
                lacks.append("its pictures (at most \(camera.limits.maxWidth)x\(camera.limits.maxHeight)) are scaled up to \(mode.width)x\(mode.height)")
            }
            if !camera.limits.holds(mode.rate) {
                lacks.append("it delivers at most \(camera.limits.maxFramesPerSecond) fps, not \(mode.rate.decimalText)")
            }
            return lacks.isEmpty ? nil : "\(camera.name): " + lacks.joined(separator: "; ")
        }
    }
}
