import DualCamTestSupport
import Testing
@testable import DualCamCore

/// Another recorder's file placed on the take by its sound. The take's sound is what the
/// cameras' mics heard of a simulated talk (`SyntheticTalk`) from T0; each file is the
/// same talk as a recorder with its own start, crystal, room and noise heard it.
@Suite struct SoundAlignmentTests {
    let rate = Double(SoundAlignment.rate)

    /// Where a file made by `recorder` should be, against where it was placed: the errors
    /// at its first and last sample (ms) and of its drift (ppm).
    struct Errors {
        var startMs: Double
        var endMs: Double
        var driftPPM: Double
    }

    func errors(_ result: SoundAlignmentResult, offset: Double, driftPPM: Double, fileSeconds: Double) -> Errors {
        let truthEnd = offset + fileSeconds / (1 + driftPPM * 1e-6)
        let first = result.pieces.first!, last = result.pieces.last!
        return Errors(startMs: (first.sessionTime(fileSeconds: 0) - offset) * 1000,
                      endMs: (last.sessionTime(fileSeconds: fileSeconds) - truthEnd) * 1000,
                      driftPPM: result.driftPPM - driftPPM)
    }

    func check(_ e: Errors, _ label: String) {
        print("\(label): start \(e.startMs) ms, end \(e.endMs) ms, drift error \(e.driftPPM) ppm")
        #expect(abs(e.startMs) <= 0.5, "\(label): start off by \(e.startMs) ms")
        #expect(abs(e.endMs) <= 0.5, "\(label): end off by \(e.endMs) ms")
        #expect(abs(e.driftPPM) <= 2, "\(label): drift off by \(e.driftPPM) ppm")
    }

    @Test func aTenMinuteFileWithDriftNoiseAndReverbIsPlacedWithinHalfAMillisecond() throws {
        let talk = SyntheticTalk(from: -10, to: 700, seed: 11)
        let reference = talk.render(start: 0, count: Int(660 * rate))
        let seconds = 600.0
        let file = SyntheticTalk.noisy(SyntheticTalk.reverberate(
            talk.render(start: 31.25, count: Int(seconds * rate), driftPPM: 73)), dB: -30, seed: 2)
        let result = try SoundAlignment.align(reference: reference, file: file)
        #expect(result.pieces.count == 1)
        #expect(result.confidence >= 0.8)
        check(errors(result, offset: 31.25, driftPPM: 73, fileSeconds: seconds), "10 min, +73 ppm, −30 dB noise, reverb")
    }

    @Test(arguments: [(-5.0, -150.0), (4.7, 150.0), (0.0137, -40.0)])
    func aFileStartingBeforeOrInsideTheTakeIsPlaced(offset: Double, drift: Double) throws {
        let talk = SyntheticTalk(from: -10, to: 200, seed: 5)
        let reference = talk.render(start: 0, count: Int(150 * rate))
        let seconds = 140.0
        let file = SyntheticTalk.noisy(talk.render(start: offset, count: Int(seconds * rate), driftPPM: drift), dB: -30, seed: 3)
        let result = try SoundAlignment.align(reference: reference, file: file)
        check(errors(result, offset: offset, driftPPM: drift, fileSeconds: seconds), "offset \(offset) s, \(drift) ppm")
    }

    @Test func aCopyMissingItsFirstAndLastFifthIsPlaced() throws {
        let talk = SyntheticTalk(from: 0, to: 200, seed: 7)
        let reference = talk.render(start: 0, count: Int(180 * rate))
        let file = talk.render(start: 36, count: Int(108 * rate), driftPPM: 120)
        let result = try SoundAlignment.align(reference: reference, file: file)
        check(errors(result, offset: 36, driftPPM: 120, fileSeconds: 108), "middle 60 %")
    }

    @Test func aPausedRecorderIsSplitIntoPiecesEachPlaced() throws {
        let talk = SyntheticTalk(from: 0, to: 200, seed: 9)
        let reference = talk.render(start: 0, count: Int(190 * rate))
        // Recording from 10 s for 60 s, paused, then again from 100 s for 70 s.
        let file = talk.render(start: 10, count: Int(60 * rate), driftPPM: 50)
            + talk.render(start: 100, count: Int(70 * rate), driftPPM: 50)
        let result = try SoundAlignment.align(reference: reference, file: file)
        try #require(result.pieces.count == 2, "pieces: \(result.pieces)")
        let (a, b) = (result.pieces[0], result.pieces[1])
        #expect(abs(a.sessionTime(fileSeconds: 0) - 10) < 0.0005)
        #expect(abs(b.sessionTime(fileSeconds: 60) - 100) < 0.0005, "second piece at \(b.sessionTime(fileSeconds: 60))")
        #expect(abs(b.sessionTime(fileSeconds: 130) - (100 + 70 / (1 + 50e-6))) < 0.0005)
        #expect(abs(a.fileEnd - 60) < 0.5 && abs(b.fileStart - 60) < 0.5, "pause placed at \(a.fileEnd)…\(b.fileStart)")
    }

    @Test func aLavalierCloseToOnePersonAndFarFromTheOtherIsPlaced() throws {
        let talk = SyntheticTalk(from: 0, to: 150, seed: 13)
        let reference = talk.render(start: 0, count: Int(140 * rate))
        // The guest 26 dB down and 3 ms (a metre) further from it than from the cameras.
        let file = SyntheticTalk.noisy(talk.render(start: 12.5, count: Int(120 * rate), driftPPM: -90, gains: [1, 0.05],
                                                   delays: [0, 0.003]), dB: -30, seed: 4)
        let result = try SoundAlignment.align(reference: reference, file: file)
        check(errors(result, offset: 12.5, driftPPM: -90, fileSeconds: 120), "lavalier on the host")
    }

    @Test func anUnrelatedTalkIsRefusedWithASentence() throws {
        let reference = SyntheticTalk(from: 0, to: 130, seed: 21).render(start: 0, count: Int(120 * rate))
        let other = SyntheticTalk(from: 0, to: 130, seed: 22).render(start: 0, count: Int(100 * rate))
        #expect(throws: SoundAlignmentProblem.self) { try SoundAlignment.align(reference: reference, file: other) }
        do {
            _ = try SoundAlignment.align(reference: reference, file: other)
        } catch {
            #expect(error.description.contains("no match with the take's sound"))
            #expect(error.description.contains("another take"))
        }
    }

    @Test func aSilentOrTooShortFileIsRefused() throws {
        let reference = SyntheticTalk(from: 0, to: 40, seed: 1).render(start: 0, count: Int(30 * rate))
        #expect(throws: SoundAlignmentProblem.silentFile) {
            try SoundAlignment.align(reference: reference, file: [Float](repeating: 0, count: Int(20 * rate)))
        }
        #expect(throws: SoundAlignmentProblem.tooShort(seconds: 2)) {
            try SoundAlignment.align(reference: reference, file: Array(reference[0..<Int(2 * rate)]))
        }
        #expect(throws: SoundAlignmentProblem.silentReference) {
            try SoundAlignment.align(reference: [Float](repeating: 0, count: Int(30 * rate)), file: reference)
        }
    }
}
