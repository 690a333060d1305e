import DualCamCore
import DualCamMedia
import DualCamNet

/// The DCTC test pattern over a moving picture. Genlocked, frame k is captured at the
/// shared instant k·P; free-running, it behaves as a camera module's sensor: frames from
/// an arbitrary phase, at its own crystal's rate (`FreeRunSensor`), each frame's duration
/// steerable within the sensor's limit, which the phase lock uses to put its frames on
/// the shared grid. The code in each frame is the true capture instant, so a wrong clock
/// shows up as differing codes across agents.
struct SyntheticSource: FrameSource {
    let rate: FrameRate
    let genlock: Bool
    let clock: AgentClock
    let width: Int
    let height: Int
    private var nextSharedFrame: Int64
    private var sensor: FreeRunSensor
    private var frameCounter: Int64 = 0
    private let pictures: PicturePool
    private let pattern: SyntheticPattern

    /// `startShared`: the first frame is the one nearest this shared instant (nil: now).
    /// `identity`: the node's name and role, drawn beside the grid (nil: no label).
    /// `freeRunPhase`: free-running, its frames start this far after a frame of the shared
    /// grid (nil: an arbitrary phase; without a clock estimate, too).
    init(width: Int, height: Int, rate: FrameRate, genlock: Bool, clock: AgentClock, startShared: SharedInstant?,
         identity: PatternIdentity? = nil, freeRunPhase: Int64? = nil, crystalPPM: Double = 0, phaseLock: Bool = false) {
        self.width = width
        self.height = height
        self.rate = rate
        self.genlock = genlock
        self.clock = clock
        self.pattern = SyntheticPattern(width: width, height: height, identity: identity)
        // As many pictures as a recording holds at once: the queue's, one being encoded
        // and one being drawn. Each frame is drawn into one that came back.
        self.pictures = PicturePool(width: width, height: height,
                                    limit: RecordingPipeline.pacedQueueCapacity(width: width, height: height, rate: rate) + 2)
        // The frame nearest T0 is the first: a clock estimate a few µs off must not
        // decide whether a session starts with frame 0 or frame 1.
        let localNow = clock.now
        let t0Shared = startShared ?? clock.estimate?.shared(fromLocal: localNow) ?? SharedInstant(unsynchronised: localNow)
        self.nextSharedFrame = GenlockGrid(rate: rate).frameIndex(atOrAfter: t0Shared.nanoseconds - rate.periodNanoseconds / 2)
        let t0Local = (clock.estimate?.local(fromShared: t0Shared) ?? localNow).nanoseconds
        // A free-running camera starts at an arbitrary phase of its own period.
        let firstLocal: Int64
        if let phase = freeRunPhase, let estimate = clock.estimate {
            let grid = SharedInstant(nanoseconds: rate.instant(ofFrame: rate.firstFrame(atOrAfter: t0Shared.nanoseconds)))
            firstLocal = estimate.local(fromShared: grid + phase % rate.periodNanoseconds).nanoseconds
        } else {
            firstLocal = t0Local + (t0Local &* 2_654_435_761 & 0x7fff_ffff) % rate.periodNanoseconds
        }
        self.sensor = FreeRunSensor(rate: rate, firstLocal: firstLocal, crystalPPM: crystalPPM,
                                    lock: genlock || !phaseLock ? nil : FreeRunSensor.lock(rate: rate))
    }

    /// Whether this source steers its frames onto the shared grid (free-running with the lock on).
    var isPhaseLocked: Bool { !genlock && sensor.lock != nil }

    var codedSize: (width: Int, height: Int) { (width, height) }
    var deliversH264: Bool { false }
    var isPaced: Bool { true }
    /// Steered onto the grid, a free-running sensor's frame meant for T0 is stamped as near
    /// it as a genlocked one's (the lock holds within 0.5 ms from well before T0: it starts
    /// with the camera at Prepare), so it starts the take the same way.
    var isGenlocked: Bool { genlock || isPhaseLocked }

    var description: String {
        "synthetic DCTC \(width)x\(height)@\(rate) \(genlock ? "genlocked" : isPhaseLocked ? "free-running, phase-locked" : "free-running")"
            + (pattern.identity.map { " labelled \($0.name) (\($0.role))" } ?? "")
    }

    mutating func next(stopLocalNanoseconds: () -> Int64?) throws -> CapturedFrame? {
        var dropped = 0
        while true {
            let local: Int64
            if genlock, let estimate = clock.estimate {
                local = estimate.local(fromShared: SharedInstant(nanoseconds: rate.instant(ofFrame: nextSharedFrame))).nanoseconds
            } else {
                local = sensor.nextLocal
            }
            // Likewise the last frame is the one whose instant is more than half a period
            // before the stop instant.
            if let stop = stopLocalNanoseconds(), local >= stop - rate.periodNanoseconds / 2 { return nil }
            let trueInstant = clock.simulatedError.trueTime(fromLocal: local)
            let now = MonotonicTime.now()
            advance(capturedLocal: local)
            // A frame is lost when a camera would have lost it: once every one of its
            // driver buffers filled while none was dequeued (V4L2Capture.bufferCount, the
            // agent's own cameras'). A CPU quota or a busy node stalls this thread for tens of
            // ms, as it stalls a camera's reader, whose driver keeps capturing meanwhile.
            if now > trueInstant + Int64(V4L2Capture.bufferCount - 1) * rate.periodNanoseconds {
                dropped += 1
                continue
            }
            MonotonicTime.sleep(until: trueInstant)
            let picture = pictures.take()
            // Every pixel is drawn anew: what the picture held before does not show.
            picture.update { image in
                pattern.render(frameIndex: frameCounter, code: DCTC.code(trueNanoseconds: trueInstant), into: &image)
            }
            frameCounter += 1
            return CapturedFrame(payload: .picture(picture), localCaptureNanoseconds: local, droppedBefore: dropped)
        }
    }

    private mutating func advance(capturedLocal local: Int64) {
        nextSharedFrame += 1
        if !genlock { sensor.captured(local: local, shared: clock.estimate?.shared(fromLocal: LocalInstant(nanoseconds: local)).nanoseconds) }
    }
}
