import DualCamCore

/// A free-running camera sensor as the synthetic source models it: its frames follow its
/// own crystal (`crystalPPM` fast or slow against the node's clock) from wherever it
/// started, and each frame's duration can be set, within `maxAdjustNanoseconds` of the
/// nominal period, the way a camera module's frame-duration control allows. With a
/// `PhaseLock` the sensor is steered onto the shared grid; without, it keeps the nominal
/// duration and drifts at its crystal's rate, as an unsteered camera does.
struct FreeRunSensor: Sendable {
    let rate: FrameRate
    let crystalPPM: Double
    private(set) var lock: PhaseLock?
    /// The local instant of the next frame.
    private(set) var nextLocal: Int64
    /// The local instant the lock first held (for the log), nil until then.
    private(set) var lockedAtLocal: Int64?
    private let startedLocal: Int64

    /// The most one frame's duration moves: 2 % of a frame (0.67 ms at 30 fps), well inside
    /// what a camera module's frame-duration limits allow at its usual exposure.
    static func maxAdjust(rate: FrameRate) -> Int64 { rate.periodNanoseconds / 50 }

    static func lock(rate: FrameRate) -> PhaseLock {
        PhaseLock(.init(rate: rate, maxAdjustNanoseconds: maxAdjust(rate: rate)))
    }

    init(rate: FrameRate, firstLocal: Int64, crystalPPM: Double, lock: PhaseLock?) {
        (self.rate, self.nextLocal, self.crystalPPM, self.lock, self.startedLocal) = (rate, firstLocal, crystalPPM, lock, firstLocal)
    }

    /// The frame due at `local` was captured; `shared` is its stamp on the shared clock
    /// (nil while there is no clock estimate: the sensor keeps its duration).
    mutating func captured(local: Int64, shared: Int64?) {
        if var steering = lock, let shared {
            let step = steering.frame(stampNanoseconds: shared)
            steered += step.frameDurationNanoseconds - rate.periodNanoseconds
            if step.locked && lockedAtLocal == nil { lockedAtLocal = local }
            lock = steering
        }
        frames += 1
        // Counted from the first frame, not added frame by frame: 1/30 s is no whole
        // number of nanoseconds, and rounding each frame would drift the rate. A crystal
        // that runs fast makes every frame it times a little short.
        let elapsed = Double(rate.instant(ofFrame: frames) + steered) / (1 + crystalPPM * 1e-6)
        nextLocal = startedLocal + Int64(elapsed.rounded())
    }

    /// Frames since the first, and what the lock has lengthened (+) or shortened them by in all.
    private var frames: Int64 = 0
    private var steered: Int64 = 0

    /// Seconds from the first frame until the lock held (nil: not locked yet, or no lock).
    var secondsToLock: Double? { lockedAtLocal.map { Double($0 - startedLocal) / 1e9 } }
}
