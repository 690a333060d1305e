@testable import DualCamAgent
import Testing

/// Before recording: refuse what cannot fit, and say what the disk holds.
struct SpacePlanTests {
    static let settings = RecordingSettings(width: 1280, height: 720, bitrate: 8_000_000)

    @Test func aPlannedLengthThatDoesNotFitIsRefusedWithNeededAndFree() {
        // 600 s at 8 Mbit/s: 750 MB with the 25 % margin, plus the 64 MB reserve.
        var settings = Self.settings
        settings.diskReserveBytes = 64_000_000
        let verdict = SpacePlan.verdict(settings: settings, seconds: 600, free: 700_000_000, at: "/spool")
        #expect(verdict.refusal?.contains("needs 814 MB") == true, "\(verdict)")
        #expect(verdict.refusal?.contains("700 MB is free") == true)
        #expect(SpacePlan.verdict(settings: settings, seconds: 600, free: 900_000_000, at: "/spool").refusal == nil)
    }

    @Test func noSetLengthNeedsAMinuteAndSaysHowLongFits() {
        var settings = Self.settings
        settings.diskReserveBytes = 0
        // A minute at 8 Mbit/s is 75 MB with the margin.
        let refused = SpacePlan.verdict(settings: settings, seconds: nil, free: 70_000_000, at: "/spool")
        #expect(refused.refusal?.contains("at least 60 s") == true, "\(refused)")
        let fits = SpacePlan.verdict(settings: settings, seconds: nil, free: 2_500_000_000, at: "/spool")
        #expect(fits.refusal == nil)
        // 2.5 GB / 1.25 MB/s = 2000 s = 33 min.
        #expect(fits.note?.contains("about 33 min fit") == true, "\(fits)")
        #expect(fits.warning == nil)
    }

    @Test func under500MBFreeWarns() {
        var settings = Self.settings
        settings.diskReserveBytes = 0
        let verdict = SpacePlan.verdict(settings: settings, seconds: 10, free: 400_000_000, at: "/spool")
        #expect(verdict.refusal == nil)
        #expect(verdict.warning?.contains("only 400 MB free at /spool") == true)
    }
}
