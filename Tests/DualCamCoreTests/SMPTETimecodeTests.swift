import Testing
@testable import DualCamCore

@Suite struct SMPTETimecodeTests {
    let ntsc = FrameRate(30000, 1001)

    @Test func dropFrameSkipsLabelsNotFrames() {
        // The first minute has 1800 labels; the next starts at ;02.
        #expect(SMPTETimecode(frames: 1799, rate: ntsc).description == "00:00:59;29")
        #expect(SMPTETimecode(frames: 1800, rate: ntsc).description == "00:01:00;02")
        // Every tenth minute keeps its ;00 and ;01.
        #expect(SMPTETimecode(frames: 17_982, rate: ntsc).description == "00:10:00;00")
        #expect(SMPTETimecode(frames: 17_981, rate: ntsc).description == "00:09:59;29")
        #expect(SMPTETimecode(frames: 107_892, rate: ntsc).description == "01:00:00;00")
        #expect(SMPTETimecode(frames: 0, rate: ntsc).framesPerDay == 2_589_408)
        let sixty = FrameRate(60000, 1001)
        #expect(SMPTETimecode(frames: 3600, rate: sixty).description == "00:01:00;04")
    }

    @Test func nonDropAtWholeRates() {
        #expect(SMPTETimecode(frames: 90_000, rate: .fps25).description == "01:00:00:00")
        #expect(SMPTETimecode(frames: 30 * 86_400 + 5, rate: .fps30).description == "00:00:00:05", "wraps at midnight")
        #expect(SMPTETimecode(frames: -1, rate: .fps30).description == "23:59:59:29")
        #expect(!SMPTETimecode(frames: 0, rate: FrameRate(24000, 1001)).dropFrame)
    }

    @Test func parsesWhatItWritesAndRefusesLabelsThatDoNotExist() {
        for frames: Int64 in [0, 1, 1799, 1800, 17_982, 2_000_000, 2_589_407] {
            let tc = SMPTETimecode(frames: frames, rate: ntsc)
            #expect(SMPTETimecode(parsing: tc.description, rate: ntsc) == tc, "\(tc)")
        }
        #expect(SMPTETimecode(parsing: "00:01:00;00", rate: ntsc) == nil, "a dropped label")
        #expect(SMPTETimecode(parsing: "00:10:00;00", rate: ntsc)?.frames == 17_982)
        #expect(SMPTETimecode(parsing: "10:00:00:00", rate: ntsc) == nil, "non-drop text at a drop-frame rate")
        #expect(SMPTETimecode(parsing: "10:00:00;00", rate: .fps25) == nil)
        #expect(SMPTETimecode(parsing: "10:00:00:25", rate: .fps25) == nil)
        #expect(SMPTETimecode(parsing: "24:00:00:00", rate: .fps25) == nil)
        #expect(SMPTETimecode(parsing: "1:00:00:00", rate: .fps25) == nil)
        #expect(SMPTETimecode(parsing: "", rate: .fps25) == nil)
        #expect(SMPTETimecode(parsing: "10:00:00:00", rate: FrameRate(25, 2)) == nil, "12.5 fps has no timecode")
    }

    @Test func timeOfDayIsQuantisedToTheNearestFrame() {
        let tenAM: Int64 = 36_000 * 1_000_000_000
        #expect(SMPTETimecode(timeOfDayNanoseconds: tenAM, rate: .fps25).description == "10:00:00:00")
        #expect(SMPTETimecode(timeOfDayNanoseconds: tenAM + 19_000_000, rate: .fps25).description == "10:00:00:00")
        #expect(SMPTETimecode(timeOfDayNanoseconds: tenAM + 21_000_000, rate: .fps25).description == "10:00:00:01")
        // Jammed to the wall clock: 10:00 reads 10:00 at 29.97 too, and a time in the labels
        // drop-frame skips reads as the next one.
        #expect(SMPTETimecode(timeOfDayNanoseconds: tenAM, rate: ntsc).description == "10:00:00;00")
        #expect(SMPTETimecode(timeOfDayNanoseconds: tenAM + 60_000_000_000, rate: ntsc).description == "10:01:00;02")
        #expect(SMPTETimecode(timeOfDayNanoseconds: tenAM + 60_100_000_000, rate: ntsc).description == "10:01:00;03")
        // 23.976 non-drop is jammed to the wall clock at 24 labels a second.
        #expect(SMPTETimecode(timeOfDayNanoseconds: tenAM, rate: FrameRate(24000, 1001)).description == "10:00:00:00")
    }

    @Test func presentationTimesCountFromTheStart() {
        let start = SMPTETimecode(frames: 100, rate: ntsc)
        #expect(start.at(presentationNanoseconds: 0) == start)
        #expect(start.at(presentationNanoseconds: 10_010_000_000).frames == 400, "300 frames of 1001/30000 s")
        #expect(start.at(presentationNanoseconds: 10_010_000_000 + 16_000_000).frames == 400)
        #expect(start.at(presentationNanoseconds: 10_010_000_000 + 17_000_000).frames == 401)
    }

    @Test func supportedRates() {
        #expect(SMPTETimecode.supports(.fps30) && SMPTETimecode.supports(ntsc) && SMPTETimecode.supports(.fps50))
        #expect(SMPTETimecode.supports(FrameRate(24000, 1001)))
        #expect(!SMPTETimecode.supports(FrameRate(15)) && !SMPTETimecode.supports(FrameRate(25, 2)))
        #expect(!SMPTETimecode.supports(FrameRate(30001, 1001)))
    }
}
