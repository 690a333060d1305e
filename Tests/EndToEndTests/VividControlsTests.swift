import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd.VividCaptureTests {
    /// The controls vivid really has, through the agent: names, types, ranges, menus.
    @Test func theAgentListsTheDriversControls() throws {
        let text = try VividRun.file("controls.log")
        #expect(try VividRun.status("controls") == 0, "\(text)")
        #expect(text.contains("v4l2 /dev/video0 (vivid"), "\(text)")
        let brightness = text.split(separator: "\n").first { $0.hasPrefix("  brightness ") }.map(String.init) ?? ""
        #expect(brightness.contains(" 128  [integer: 0…255, default 128]"), "\(text)")
        // The standard controls by their kernel names, and vivid's own under names made
        // from its labels, with their kinds.
        for expected in ["  contrast ", "  saturation ", "  hue ", "  button ", "  boolean ", "  integer_32_bits ",
                         "  integer_64_bits ", "[menu: one of:", "[boolean: 0 or 1", "[button: ", "[integer64: "] {
            #expect(text.contains(expected), "missing \(expected) in:\n\(text)")
        }
    }

    /// Set over the protocol (coordinator `camera` → agent → driver), read back from the
    /// driver by v4l2-ctl, and seen in the pictures: the bright file's luma is above the
    /// dim one's.
    @Test func brightnessSetOverTheProtocolReadsBackAndBrightensTheRecording() throws {
        let listed = try VividRun.file("remote-list.log")
        #expect(try VividRun.status("remote-list") == 0, "\(listed)")
        #expect(listed.contains("brightness") && listed.contains("contrast"), "\(listed)")
        let set = try VividRun.file("remote-set.log")
        #expect(try VividRun.status("remote-set") == 0, "\(set)")
        #expect(set.contains("brightness = 200"), "\(set)")
        let readback = try VividRun.file("readback.log")
        #expect(readback.contains("brightness: 200"), "\(readback)")
        func meanLuma(_ name: String) throws -> Double {
            let log = try VividRun.file(name + ".log")
            #expect(try VividRun.status(name) == 0, "\(log.suffix(2000))")
            let movie = try #require(VividRun.movie(log), "\(log.suffix(2000))")
            var total = 0.0, count = 0.0
            try MediaProbe.forEachFrame(path: movie) { frame in
                let image = frame.image
                for y in stride(from: 0, to: image.height, by: 4) {
                    for x in stride(from: 0, to: image.width, by: 4) {
                        total += Double(image.luma(x, y))
                        count += 1
                    }
                }
            }
            return total / max(count, 1)
        }
        let dim = try meanLuma("dim"), bright = try meanLuma("bright")
        #expect(bright > dim + 40, "mean luma: brightness 40 gave \(dim), 200 gave \(bright)")
    }

    /// Bad values never reach the driver and each says what to do; the exit status says
    /// something was refused.
    @Test func badSettingsSayTheRangeTheValuesAndTheNames() throws {
        let text = try VividRun.file("remote-bad.log")
        #expect(try VividRun.status("remote-bad") == 1, "\(text)")
        #expect(text.contains("brightness 999 is out of range: 0…255"), "\(text)")
        #expect(text.contains("contrast: 'abc' is not a value it takes: 0…255"), "\(text)")
        #expect(text.contains("this camera has no control nosuch; it has: brightness, contrast"), "\(text)")
    }
}
