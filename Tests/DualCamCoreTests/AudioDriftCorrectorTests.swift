import DualCamTestSupport
import Testing
@testable import DualCamCore

/// A simulated sound card against the shared clock (here the true clock): it runs
/// `ppm` fast, its chunk timestamps are the true instant of the chunk's first sample plus
/// seeded uniform jitter of ±2 ms, and the resampler is modelled as mapping the kept input
/// of a chunk linearly onto its `output` samples, so every input sample's output position,
/// and hence its A/V offset, is known exactly.
private struct CardSimulation {
    static let rate = 48_000
    /// The card's nominal rate; the output (the track) is always `rate`.
    let inputRate: Int
    let t0: Int64 = 10_000_000_000
    let ppm: Double
    let chunk: Int
    /// True instant of card sample 0.
    let firstSample: Int64
    var rng: SplitMix64
    var corrector: AudioDriftCorrector
    /// Next card sample index, counting samples lost in overruns.
    var cardIndex: Int64 = 0
    var plans: [AudioChunkPlan] = []
    /// (seconds since t0, A/V offset in ns) of the first and last kept sample of each chunk.
    var offsets: [(time: Double, nanoseconds: Double)] = []
    /// Chunks after which `outputPosition` was not the sum of everything planned.
    var positionMismatches = 0
    /// The next chunk follows an overrun the driver reported.
    var overrun = false
    /// Added to the next chunk's timestamp only: a stamp taken late.
    var lateStamp: Int64 = 0

    init(ppm: Double, chunk: Int, seed: UInt64, startRelativeToT0: Int64 = 5_000_000, inputRate: Int = rate) {
        self.ppm = ppm
        self.chunk = chunk
        self.inputRate = inputRate
        firstSample = t0 + startRelativeToT0
        rng = SplitMix64(seed: seed)
        corrector = AudioDriftCorrector(inputRate: inputRate, outputRate: Self.rate, t0SharedNanoseconds: t0)
    }

    func trueTime(ofCardSample g: Int64) -> Double {
        Double(firstSample) + Double(g) * 1e9 / (Double(inputRate) * (1 + ppm * 1e-6))
    }

    mutating func step() {
        let truth = trueTime(ofCardSample: cardIndex)
        let stamp = Int64((truth + (rng.unit() * 2 - 1) * 2_000_000).rounded()) + lateStamp
        let before = corrector.outputPosition
        let plan = corrector.plan(inputSamples: chunk, firstSampleSharedNanoseconds: stamp, discontinuity: overrun)
        overrun = false
        lateStamp = 0
        plans.append(plan)
        let kept = chunk - plan.dropInput
        if kept > 0 {
            let outStart = Double(before + Int64(plan.silenceBefore))
            let perInput = Double(plan.output) / Double(kept)
            for j in [0, kept - 1] {
                let g = cardIndex + Int64(plan.dropInput + j)
                let sinceT0 = trueTime(ofCardSample: g) - Double(t0)
                let placed = (outStart + Double(j) * perInput) * 1e9 / Double(Self.rate)
                offsets.append((sinceT0 / 1e9, placed - sinceT0))
            }
        }
        if corrector.outputPosition != before + Int64(plan.silenceBefore + plan.output) { positionMismatches += 1 }
        cardIndex += Int64(chunk)
    }

    mutating func run(seconds: Double) {
        let end = Double(t0) + seconds * 1e9
        while trueTime(ofCardSample: cardIndex) < end { step() }
    }

    /// Worst |offset| among samples whose true time since t0 is in `range`, in ms.
    func worstMilliseconds(_ range: ClosedRange<Double>) -> Double {
        offsets.filter { range.contains($0.time) }.map { $0.nanoseconds.magnitude }.max().map { $0 / 1e6 } ?? .nan
    }
}

@Suite struct AudioDriftCorrectorTests {
    struct Card: CustomTestStringConvertible, Sendable {
        var ppm: Double
        var chunk: Int
        var rate = 48_000
        var testDescription: String { "\(ppm) ppm, \(chunk)-sample chunks" + (rate == 48_000 ? "" : ", \(rate) Hz card") }
    }

    @Test(arguments: [Card(ppm: 50, chunk: 1024), Card(ppm: -50, chunk: 1024), Card(ppm: 0, chunk: 1024),
                      Card(ppm: 50, chunk: 480), Card(ppm: 50, chunk: 1024, rate: 44_100), Card(ppm: -50, chunk: 441, rate: 44_100)])
    func holdsAVOffsetThroughAnHour(card: Card) {
        var sim = CardSimulation(ppm: card.ppm, chunk: card.chunk, seed: UInt64(card.ppm + 1000) &* 31 &+ UInt64(card.chunk),
                                 inputRate: card.rate)
        sim.run(seconds: 3600)
        let start = sim.worstMilliseconds(0.05...60), end = sim.worstMilliseconds(3540...3600)
        let overall = sim.worstMilliseconds(0...3600)
        print("AUDIO-DRIFT \(card.testDescription): start \(start) ms, end \(end) ms, overall \(overall) ms, "
              + "rate \(sim.corrector.ratePPM) ppm, last error \(sim.corrector.lastErrorNanoseconds / 1e6) ms")
        #expect(start <= 3, "first minute: \(start) ms")
        #expect(end <= 0.5, "last minute: \(end) ms")
        #expect(overall <= 15)
        // ±2 ms jitter over a 60 s window leaves about 1 ppm of noise in the rate.
        #expect((sim.corrector.ratePPM - card.ppm).magnitude < 3, "\(sim.corrector.ratePPM) ppm")
        #expect(sim.corrector.lastErrorNanoseconds.magnitude < 1_000_000)
        // No hard corrections after the start, and every stretch within ±0.5 %.
        #expect(sim.plans.dropFirst().allSatisfy { $0.silenceBefore == 0 && $0.dropInput == 0 })
        // Against the nominal conversion (1024 samples at 44.1 kHz are 1114.6 at 48 kHz), and
        // rounding to whole samples.
        let nominal = Double(card.chunk) * 48_000 / Double(card.rate)
        #expect(sim.plans.dropFirst().allSatisfy { (Double($0.output) - nominal).magnitude <= 0.005 * nominal + 1 })
        #expect(sim.positionMismatches == 0)
    }

    @Test func fillsTwoHundredMillisecondsOfLostSamplesWithSilence() {
        var sim = CardSimulation(ppm: 50, chunk: 1024, seed: 77)
        sim.run(seconds: 600)
        let before = sim.plans.count
        sim.cardIndex += 9600  // an overrun: these samples never reach the corrector
        sim.overrun = true
        sim.run(seconds: 1200)
        let gap = sim.plans[before]
        print("AUDIO-GAP silence \(gap.silenceBefore), worst after \(sim.worstMilliseconds(600.1...1200)) ms, "
              + "last minute \(sim.worstMilliseconds(1140...1200)) ms")
        #expect((gap.silenceBefore - 9600).magnitude <= 100, "\(gap.silenceBefore)")
        #expect(gap.dropInput == 0)
        #expect(sim.plans.dropFirst().filter { $0.silenceBefore > 0 || $0.dropInput > 0 }.count == 1)
        #expect(sim.worstMilliseconds(600.1...1200) <= 3)
        #expect(sim.worstMilliseconds(1140...1200) <= 0.5)
        #expect((sim.corrector.ratePPM - 50).magnitude < 3)
    }

    @Test func dropsWhatWasCapturedBeforeT0() {
        var sim = CardSimulation(ppm: 50, chunk: 1024, seed: 3, startRelativeToT0: -37_000_000)
        sim.run(seconds: 30)
        let dropped = sim.plans.map(\.dropInput).reduce(0, +)
        print("AUDIO-EARLY dropped \(dropped), worst \(sim.worstMilliseconds(0...30)) ms")
        #expect((dropped - 1776).magnitude <= 100, "\(dropped)")
        #expect(sim.plans.allSatisfy { $0.silenceBefore == 0 })
        #expect(sim.worstMilliseconds(0...30) <= 3)
    }

    @Test func padsUpToAFirstChunkAfterT0() {
        var sim = CardSimulation(ppm: -50, chunk: 1024, seed: 4, startRelativeToT0: 100_000_000)
        sim.run(seconds: 30)
        let first = sim.plans[0]
        print("AUDIO-LATE silence \(first.silenceBefore), worst \(sim.worstMilliseconds(0...30)) ms")
        #expect((first.silenceBefore - 4800).magnitude <= 100, "\(first.silenceBefore)")
        #expect(first.dropInput == 0)
        #expect(sim.plans.dropFirst().allSatisfy { $0.silenceBefore == 0 && $0.dropInput == 0 })
        #expect(sim.worstMilliseconds(0...30) <= 3)
    }

    @Test func anUnreportedStepBackIsDroppedOnceConfirmed() {
        var sim = CardSimulation(ppm: 0, chunk: 1024, seed: 9)
        sim.run(seconds: 120)
        let before = sim.plans.count
        sim.cardIndex -= 2400  // the card repeats 50 ms: its timestamps step back, no overrun reported
        sim.run(seconds: 240)
        // Two chunks could be late stamps; the third confirms the step, and 2400 samples
        // (more than two chunks) are dropped from there on.
        let dropped = sim.plans[before...].map(\.dropInput)
        #expect(dropped[0] == 0 && dropped[1] == 0 && dropped[2] == 1024 && dropped[3] == 1024, "\(dropped.prefix(6))")
        #expect(dropped[5...].allSatisfy { $0 == 0 }, "\(dropped.prefix(6))")
        #expect((dropped.reduce(0, +) - 2400).magnitude <= 100, "\(dropped.prefix(6))")
        #expect(sim.plans[before...].allSatisfy { $0.silenceBefore == 0 })
        // 50 ms off for the two chunks it took to be sure, then back in place.
        #expect(sim.worstMilliseconds(120.2...240) <= 3)
    }

    @Test func lateStampsAloneMoveNothing() {
        var sim = CardSimulation(ppm: 30, chunk: 1024, seed: 21)
        sim.run(seconds: 60)
        let before = sim.plans.count
        // A busy machine: now and then a chunk is stamped 40-80 ms late, never twice in a row.
        for i in 0..<50 {
            sim.lateStamp = 40_000_000 + Int64(i % 5) * 10_000_000
            sim.step()
            sim.run(seconds: 60 + Double(i + 1) * 2)
        }
        #expect(sim.plans[before...].allSatisfy { $0.silenceBefore == 0 && $0.dropInput == 0 })
        #expect(sim.corrector.outliersIgnored == 50)
        #expect(sim.worstMilliseconds(0.1...160) <= 3)
        #expect((sim.corrector.ratePPM - 30).magnitude < 3)
    }

    @Test func emptyChunkChangesNothing() {
        var c = AudioDriftCorrector(sampleRate: 48_000, t0SharedNanoseconds: 0)
        #expect(c.plan(inputSamples: 0, firstSampleSharedNanoseconds: 5_000_000) == AudioChunkPlan(dropInput: 0, silenceBefore: 0, output: 0))
        #expect(c.outputPosition == 0)
        let first = c.plan(inputSamples: 1024, firstSampleSharedNanoseconds: 0)
        #expect(first == AudioChunkPlan(dropInput: 0, silenceBefore: 0, output: 1024))
        #expect(c.ratePPM.magnitude < 1e-6)
    }
}
