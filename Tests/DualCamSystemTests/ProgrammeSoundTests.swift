@testable import DualCamCoordinator
import DualCamMedia
import Foundation
import Testing

/// The combined file's levelling on real voices, quiet and hot: the espeak-ng interview's
/// two mics mixed (its first 30 s: the test runs a debug build), 15 dB down and 6 dB up, come out at −16 LUFS ± 1 under −1 dBTP, as an
/// independent R128 meter (libebur128, 4× oversampled true peak) reads what is written.
/// The end-to-end director test reads a real file with ffmpeg's meter.
@Suite struct ProgrammeSoundTests {
    @Test(arguments: [-15.0, 0.0, 6.0])
    func aConversationAtAnyLevelComesOutPublishable(gainDB: Double) throws {
        let folder = try DirectorConversationTests.render("interview.txt", crosstalkDB: 10)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mics = try ["host", "guest"].map { try SoundFileReader(path: folder + "/\($0).wav", sampleRate: 48000, channels: 1).read(frames: 48000 * 30) }
        let gain = Float(pow(10, gainDB / 20))
        let count = min(mics[0].count, mics[1].count)
        var stereo = [Float](repeating: 0, count: count * 2)
        for n in 0..<count {
            let v = (mics[0][n] + mics[1][n]) * gain
            stereo[2 * n] = v
            stereo[2 * n + 1] = v
        }
        let programme = try ProgrammeSound(channels: 2, sampleRate: 48000, targetLUFS: -16)
        let check = try LoudnessMeter(channels: 2, sampleRate: 48000, context: "check")
        var written = 0
        // In the pieces the renderer writes: about a frame's worth, unevenly.
        var at = 0, piece = 1600
        while at < stereo.count {
            let end = min(at + piece, stereo.count)
            let out = try programme.process(Array(stereo[at..<end]))
            try check.add(out)
            written += out.count
            at = end
            piece = piece == 1600 ? 1602 : 1600
        }
        let tail = try programme.flush()
        try check.add(tail)
        written += tail.count
        #expect(written == stereo.count, "every sample written once")
        let integrated = try #require(try check.integrated())
        let peak = try #require(try check.truePeak())
        let record = try programme.record()
        #expect(abs(integrated + 16) <= 1, "\(gainDB) dB: \(integrated) LUFS, \(record)")
        #expect(peak <= -1, "\(gainDB) dB: true peak \(peak) dBTP")
        #expect(record.integratedLUFS.map { abs($0 - integrated) < 0.15 } == true, "\(record)")
    }
}
