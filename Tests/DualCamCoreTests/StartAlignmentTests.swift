import Testing
@testable import DualCamCore

/// Start alignment on simulated cameras that cannot be steered: each starts its frames a
/// fixed latency (plus jitter) after stream-on and runs at its own crystal's rate.
@Suite struct StartAlignmentTests {
    /// A camera whose first frame comes `latency` after stream-on (±`jitter`), skipping
    /// `skipped` frames the first time it starts.
    struct Camera {
        let latency: Int64
        let jitter: Int64
        let crystalPPM: Double
        var random: TestRandom

        /// The first frame's stamp and sequence after stream-on at `streamOn`.
        mutating func start(at streamOn: Int64, skipped: UInt32 = 0, period: Int64) -> (stamp: Int64, sequence: UInt32) {
            let noise = Int64((Double(jitter) * random.symmetric()).rounded())
            let stamp = streamOn + latency + noise + Int64(skipped) * period
            return (Int64((Double(stamp - streamOn) / (1 + crystalPPM * 1e-6)).rounded()) + streamOn, skipped)
        }
    }

    static let rate = FrameRate.fps30

    /// Measure, then start aligned: the report a start gives.
    static func alignedStart(_ camera: inout Camera, now: Int64, skipped: UInt32 = 0) -> StartAlignment.Report {
        let alignment = StartAlignment(rate: rate)
        let period = rate.periodNanoseconds
        let first = camera.start(at: now, skipped: skipped, period: period)
        let latency = alignment.latency(streamOnNanoseconds: now, firstStampNanoseconds: first.stamp, firstSequence: first.sequence)
        let plan = alignment.plan(latencyNanoseconds: latency, nowNanoseconds: first.stamp)
        #expect(plan.streamOnNanoseconds >= first.stamp + alignment.marginNanoseconds)
        #expect(plan.firstFrameNanoseconds == plan.streamOnNanoseconds + latency)
        let aligned = camera.start(at: plan.streamOnNanoseconds, period: period)
        return StartAlignment.Report(latencyNanoseconds: latency,
                                     unalignedPhaseNanoseconds: alignment.phase(ofStampNanoseconds: first.stamp),
                                     alignedPhaseNanoseconds: alignment.phase(ofStampNanoseconds: aligned.stamp))
    }

    @Test func aSteadyLatencyPutsTheFirstFrameOnTheGrid() {
        var worstAligned: Int64 = 0
        var unaligned: [Int64] = []
        for seed in UInt64(1)...200 {
            var random = TestRandom(seed: seed)
            let latency = 5_000_000 + Int64(random.next() % 150_000_000)
            let ppm = 200 * random.symmetric()
            var camera = Camera(latency: latency, jitter: 100_000, crystalPPM: ppm, random: random)
            let now = 1_000_000_000_000 + Int64(random.next() % 1_000_000_000)
            let report = Self.alignedStart(&camera, now: now)
            worstAligned = max(worstAligned, abs(report.alignedPhaseNanoseconds))
            unaligned.append(abs(report.unalignedPhaseNanoseconds))
        }
        // Twice the jitter (one on each start) and the crystal over a latency of at most
        // 155 ms (31 µs at 200 ppm).
        #expect(worstAligned <= 2 * 100_000 + 32_000, "worst aligned first frame \(worstAligned) ns")
        // Unaligned, the phase is anywhere in half a period either way: a quarter period on average.
        let mean = Double(unaligned.reduce(0, +)) / Double(unaligned.count)
        #expect(mean > 6_000_000 && mean < 10_500_000, "mean unaligned phase \(mean) ns")
    }

    @Test func framesTheDriverSkippedAtStartAreNotCountedAsLatency() {
        var camera = Camera(latency: 42_000_000, jitter: 0, crystalPPM: 0, random: TestRandom(seed: 3))
        let report = Self.alignedStart(&camera, now: 7_000_000_000, skipped: 2)
        #expect(report.latencyNanoseconds == 42_000_000)
        #expect(report.alignedPhaseNanoseconds == 0)
        // A sequence far past the start is a driver that counts on: taken as it is.
        let alignment = StartAlignment(rate: Self.rate)
        #expect(alignment.latency(streamOnNanoseconds: 0, firstStampNanoseconds: 50_000_000, firstSequence: 900) == 50_000_000)
    }

    @Test func thePlanLeavesTheShellItsMarginAndTheNearestGridInstant() {
        let alignment = StartAlignment(rate: Self.rate)
        let period = Self.rate.periodNanoseconds
        for latency in [Int64(0), 1_000_000, 33_000_000, 120_000_000] {
            for now in [Int64(0), 1, period - 1, 5 * period + 17] {
                let plan = alignment.plan(latencyNanoseconds: latency, nowNanoseconds: now)
                #expect(plan.streamOnNanoseconds >= now + alignment.marginNanoseconds)
                // Not a frame later than needed.
                #expect(plan.streamOnNanoseconds - period < now + alignment.marginNanoseconds)
                #expect(alignment.phase(ofStampNanoseconds: plan.firstFrameNanoseconds) == 0)
            }
        }
        #expect(alignment.phase(ofStampNanoseconds: Self.rate.instant(ofFrame: 1) + 2_000_000) == 2_000_000)
        #expect(alignment.phase(ofStampNanoseconds: Self.rate.instant(ofFrame: 10) - 3_000_000) == -3_000_000)
    }

    @Test func theReportSaysBothFigures() {
        let report = StartAlignment.Report(latencyNanoseconds: 41_260_000, unalignedPhaseNanoseconds: -12_340_000,
                                           alignedPhaseNanoseconds: 180_000)
        #expect(report.sentence == "first frame started +0.2 ms from the grid (start latency 41.3 ms; unaligned it was -12.3 ms)")
    }
}
