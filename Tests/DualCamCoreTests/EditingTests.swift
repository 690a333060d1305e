import Testing
@testable import DualCamCore

@Suite struct EditingTests {
    @Test func samplerKeepsAnEvenSpreadWhateverTheLength() {
        var sampler = FrameSampler(capacity: 24)
        var held = Set<Int64>()
        for tick: Int64 in 0..<10_000 where sampler.wants(tick: tick) {
            held.insert(tick)
            held.subtract(sampler.keep(tick: tick))
            #expect(held.count <= 25)
        }
        #expect(Set(sampler.kept) == held)
        #expect(sampler.kept.count >= 12)
        let gaps = zip(sampler.kept, sampler.kept.dropFirst()).map { $1 - $0 }
        #expect(Set(gaps).count == 1, "\(sampler.kept)")
        let picked = sampler.pick(12)
        #expect(picked.count == 12 && picked == picked.sorted())
        #expect(picked.first! < 1500 && picked.last! > 8000, "\(picked)")
        // A short session gives what it has.
        var short = FrameSampler()
        for tick: Int64 in 0..<5 where short.wants(tick: tick) { _ = short.keep(tick: tick) }
        #expect(short.pick(12) == [0, 1, 2, 3, 4])
    }

    @Test func placementRoundsToTheSessionGrid() {
        let ntsc = FrameRate(30000, 1001)
        let onTime = ClipPlacement(firstNanoseconds: 0, endNanoseconds: 10_010_000_000, rate: ntsc)
        #expect(onTime == ClipPlacement(startFrame: 0, durationFrames: 300))
        // A free-running camera's first frame 10 ms after T0 still starts on frame 0; one
        // 2 s late on frame 60.
        #expect(ClipPlacement(firstNanoseconds: 10_000_000, endNanoseconds: 1_011_000_000, rate: ntsc).startFrame == 0)
        #expect(ClipPlacement(firstNanoseconds: 2_002_000_000, endNanoseconds: 3_003_000_000, rate: ntsc)
                == ClipPlacement(startFrame: 60, durationFrames: 30))
    }

    @Test func contactSheetTilesInOrder() {
        let layout = ContactSheetLayout(sourceWidth: 1280, sourceHeight: 720, tileWidth: 8, columns: 2, rows: 1, margin: 2)
        #expect(layout.tileHeight == 4 && layout.width == 22 && layout.height == 8)
        var bright = YUV420Image(width: 8, height: 4)
        bright.y = [UInt8](repeating: 200, count: 32)
        let sheet = layout.sheet([YUV420Image(width: 8, height: 4), bright])
        #expect(sheet.luma(2, 2) == 16 && sheet.luma(12, 2) == 200 && sheet.luma(19, 5) == 200 && sheet.luma(20, 5) == 16)
        #expect(sheet.luma(11, 2) == 16, "the margin stays dark")
    }

    static func timeline(name: String = "DualCam s1") -> EditTimeline {
        let ntsc = FrameRate(30000, 1001)
        let start = SMPTETimecode(frames: 1_078_920, rate: ntsc)
        func clip(_ name: String, _ role: String, _ first: Int64, _ frames: Int64) -> EditTimeline.Clip {
            EditTimeline.Clip(name: name, role: role, path: "DualCam_\(name)_s1.mp4",
                              placement: ClipPlacement(startFrame: first, durationFrames: frames),
                              sourceStart: start.adding(frames: first), hasAudio: true,
                              sound: role == "combined" ? nil : .init(path: "DualCam_\(name)_s1.wav", channels: 1, sampleRate: 48_000))
        }
        return EditTimeline(name: name, rate: ntsc, width: 1920, height: 1080, start: start,
                            cameras: [clip("Host", "host", 0, 300), clip("Guest", "guest", 45, 255)],
                            combined: clip("Combined", "combined", 0, 300))
    }

    @Test func writersPlaceEachFileAtItsOffset() {
        let t = Self.timeline()
        let fcpxml = FCPXMLWriter.text(t)
        #expect(fcpxml.contains("<fcpxml version=\"1.10\">"))
        #expect(fcpxml.contains("<mc-angle name=\"Guest\""))
        #expect(t.fcpxTime(30) == "1001/1000s" && t.fcpxTime(0) == "0s")
        #expect(fcpxml.contains("tcStart=\"\(t.fcpxTime(1_078_920))\""))
        // The guest's lane begins 45 frames (1.5015 s) after the sequence's start.
        #expect(fcpxml.contains("lane=\"2\" name=\"Guest\" offset=\"\(t.fcpxTime(1_078_920 + 45))\""), "\(fcpxml)")
        let xmeml = XMEMLWriter.text(t)
        #expect(xmeml.contains("<start>45</start>") && xmeml.contains("<end>300</end>"))
        #expect(xmeml.contains("<displayformat>DF</displayformat>"))
        let otio = OTIOWriter.text(t)
        #expect(otio.contains("\"OTIO_SCHEMA\": \"Gap.1\""))
        let edl = EDLWriter.text(t)
        #expect(edl.contains("FCM: DROP FRAME"))
        #expect(edl.contains("10:00:00;00 10:00:10;00 10:00:00;00 10:00:10;00"), "\(edl)")
    }

    @Test func namesFromAFolderCannotBreakTheMarkup() {
        var t = Self.timeline(name: "a\"<b>&'\nc")
        t.cameras[0].path = "we ird/\"x\".mp4"
        let fcpxml = FCPXMLWriter.text(t)
        #expect(fcpxml.contains("name=\"a&quot;&lt;b&gt;&amp;&apos;\nc\""))
        #expect(fcpxml.contains("src=\"we%20ird/%22x%22.mp4\""), "\(fcpxml)")
        #expect(OTIOWriter.text(t).contains("\"a\\\"<b>&'\\nc\""))
        #expect(!EDLWriter.text(t).contains("\nc\n"), "a line break in the title starts no new line")
    }
}
