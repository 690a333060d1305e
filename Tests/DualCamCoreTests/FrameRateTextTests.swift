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
}
