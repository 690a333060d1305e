import DualCamCore
import DualCamNet

/// The timing of a sound card that runs off the agent's local clock, `ratePPM` fast, for
/// the sources that have no card (the tone bursts, a sound file): each period is stamped
/// on the local clock where a card would stamp it, and handed over once its last sample
/// is in, so what they record reaches the drift corrector as a real card's would. What a
/// sample holds is for the source to say, from the true instant it was taken at.
struct SimulatedSoundCard {
    let sampleRate: Int
    let clock: AgentClock
    private let startLocal: Int64
    private let localNanosecondsPerSample: Double
    private var index: Int64 = 0

    /// One period: where it is stamped, and the true instants of its samples.
    struct Period {
        var firstLocal: Int64
        var firstTrue: Int64
        /// True nanoseconds between two samples: the card's rate error and the local
        /// clock's skew together.
        var trueStep: Double

        func trueInstant(ofSample i: Int) -> Int64 { firstTrue + Int64((Double(i) * trueStep).rounded()) }
    }

    init(sampleRate: Int, ratePPM: Double, clock: AgentClock, startLocalNanoseconds: Int64) {
        self.sampleRate = sampleRate
        self.clock = clock
        startLocal = startLocalNanoseconds
        localNanosecondsPerSample = 1e9 / (Double(sampleRate) * (1 + ratePPM * 1e-6))
    }

    private func local(ofSample n: Int64) -> Int64 {
        startLocal + Int64((Double(n) * localNanosecondsPerSample).rounded())
    }

    /// The next `count` samples' period, returned once the card would hand it over.
    mutating func next(count: Int) -> Period {
        let firstLocal = local(ofSample: index)
        let endLocal = local(ofSample: index + Int64(count))
        let error = clock.simulatedError
        let firstTrue = error.trueTime(fromLocal: firstLocal)
        let endTrue = error.trueTime(fromLocal: endLocal)
        MonotonicTime.sleep(until: endTrue)
        index += Int64(count)
        return Period(firstLocal: firstLocal, firstTrue: firstTrue, trueStep: Double(endTrue - firstTrue) / Double(count))
    }
}
