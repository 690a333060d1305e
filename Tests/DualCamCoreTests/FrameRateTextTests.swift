import DualCamCore
import Testing

struct FrameRateTextTests {
    @Test func ratesReadAsPeopleWriteThem() {
        #expect(FrameRate.fps30.decimalText == "30")
        #expect(FrameRate(60, 2).decimalText == "30")
        #expect(FrameRate.ntsc30.decimalText == "29.97")
        #expect(FrameRate(25, 2).decimalText == "12.50")
        #expect(FrameRate(1, 10).decimalText == "0.10")
        #expect(FrameRate(121, 2).decimalText == "60.50")
    }

    /// Options take what a camera and the encoder can run at; files written elsewhere may
    /// still hold faster rates, which the parser reads.
    @Test func optionsTakeOneToTwoHundredFortyFramesASecond() {
        for good in ["1", "24", "29.97", "30000/1001", "60", "120", "240"] {
            #expect(FrameRate.optionProblem(good) == nil, "\(good)")
        }
        #expect(FrameRate.optionProblem("1000")?.contains("1 to 240 frames a second") == true)
        #expect(FrameRate.optionProblem("241")?.contains("out of range") == true)
        #expect(FrameRate.optionProblem("480000/1001")?.contains("out of range") == true)
        #expect(FrameRate.optionProblem("fast")?.contains("is not a rate") == true)
        #expect(FrameRate(parsing: "1000") != nil)
    }
}
