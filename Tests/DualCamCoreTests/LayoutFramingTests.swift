import Testing
@testable import DualCamCore

/// Fit and anchor: where a picture lands in its slot, what the compositor draws there,
/// and that the DCTC grid can still be found in every placement.
@Suite struct LayoutFramingTests {
    @Test func fitKeepsTheWholePictureCentredWithEvenEdges() {
        let wide = PixelRect(x: 960, y: 0, width: 960, height: 1080)
        #expect(LayoutGeometry.fitRect(sourceWidth: 1920, sourceHeight: 1080, in: wide)
                == PixelRect(x: 960, y: 270, width: 960, height: 540))
        let band = PixelRect(x: 0, y: 540, width: 1920, height: 540)
        #expect(LayoutGeometry.fitRect(sourceWidth: 1920, sourceHeight: 1080, in: band)
                == PixelRect(x: 480, y: 540, width: 960, height: 540))
        // A 4:3 camera in a 16:9 slot is pillarboxed; in its own shape it fills the slot.
        #expect(LayoutGeometry.fitRect(sourceWidth: 640, sourceHeight: 480, in: PixelRect(x: 0, y: 0, width: 1280, height: 720))
                == PixelRect(x: 160, y: 0, width: 960, height: 720))
        #expect(LayoutGeometry.fitRect(sourceWidth: 640, sourceHeight: 480, in: PixelRect(x: 2, y: 4, width: 320, height: 240))
                == PixelRect(x: 2, y: 4, width: 320, height: 240))
        for (sw, sh) in [(1920, 1080), (640, 480), (1080, 1920), (1279, 721)] {
            for slot in [PixelRect(x: 0, y: 0, width: 961, height: 1081), PixelRect(x: 6, y: 8, width: 300, height: 100),
                         PixelRect(x: 10, y: 2, width: 100, height: 300)] {
                let r = LayoutGeometry.fitRect(sourceWidth: sw, sourceHeight: sh, in: slot)
                #expect(r.x >= slot.x && r.y >= slot.y && r.x + r.width <= slot.x + slot.width
                        && r.y + r.height <= slot.y + slot.height, "\(sw)x\(sh) in \(slot): \(r)")
                #expect(r.x % 2 == 0 && r.y % 2 == 0, "\(r)")
                #expect(r.width == slot.width || r.height == slot.height, "\(sw)x\(sh) in \(slot): \(r) touches neither side")
                // The source's shape to within the even rounding of one side.
                let shape = Double(r.width) / Double(r.height) - Double(sw) / Double(sh)
                #expect(abs(shape) <= 2.0 / Double(min(r.width, r.height)) * Double(sw) / Double(sh) + 1e-9, "\(r)")
            }
        }
    }

    @Test func anchorMovesACropOfTheHeightOnly() {
        let top = LayoutGeometry.coverCrop(sourceWidth: 1920, sourceHeight: 1080, slotWidth: 1920, slotHeight: 540, anchor: .top)
        let centre = LayoutGeometry.coverCrop(sourceWidth: 1920, sourceHeight: 1080, slotWidth: 1920, slotHeight: 540)
        let bottom = LayoutGeometry.coverCrop(sourceWidth: 1920, sourceHeight: 1080, slotWidth: 1920, slotHeight: 540, anchor: .bottom)
        #expect(top == PixelRect(x: 0, y: 0, width: 1920, height: 540))
        #expect(centre == PixelRect(x: 0, y: 270, width: 1920, height: 540))
        #expect(bottom == PixelRect(x: 0, y: 540, width: 1920, height: 540))
        for anchor in CropAnchor.allCases {
            #expect(LayoutGeometry.coverCrop(sourceWidth: 1920, sourceHeight: 1080, slotWidth: 960, slotHeight: 1080, anchor: anchor)
                    == PixelRect(x: 480, y: 0, width: 960, height: 1080))
        }
        // An odd leftover: the bottom crop stays even and inside the source.
        let odd = LayoutGeometry.coverCrop(sourceWidth: 640, sourceHeight: 361, slotWidth: 640, slotHeight: 180, anchor: .bottom)
        #expect(odd.y % 2 == 0 && odd.y + odd.height <= 361 && odd.y + odd.height >= 360, "\(odd)")
    }

    @Test func eachKindFramesItsPicturesAsDocumented() {
        func framing(_ spec: LayoutSpec, _ n: Int = 2) -> [String] {
            LayoutGeometry.slots(for: spec, outputWidth: 1920, outputHeight: 1080, streamCount: n)
                .map { $0.fit == .fit ? "fit" : "fill-\($0.anchor.rawValue)" }
        }
        #expect(framing(LayoutSpec(kind: .pip)) == ["fill-center", "fill-center"])
        #expect(framing(LayoutSpec(kind: .splitVertical)) == ["fill-top", "fill-top"])
        #expect(framing(LayoutSpec(kind: .splitHorizontal)) == ["fill-center", "fill-center"])
        #expect(framing(LayoutSpec(kind: .dominance)) == ["fill-center", "fit"])
        #expect(framing(LayoutSpec(kind: .equal)) == ["fit", "fit"])
        #expect(framing(LayoutSpec(kind: .grid), 5) == ["fit", "fit", "fit", "fit", "fit"])
        // A choice applies to every picture but a picture-in-picture window.
        #expect(framing(LayoutSpec(kind: .pip, fit: .fit, anchor: .top)) == ["fit", "fill-top"])
        #expect(framing(LayoutSpec(kind: .dominance, fit: .fill, anchor: .bottom)) == ["fill-bottom", "fill-bottom"])
        #expect(framing(LayoutSpec(kind: .grid, fit: .fill, anchor: .top)) == ["fill-top", "fill-top"])
    }

    @Test func gridKeepsItsMarginBetweenAndAroundTheCells() {
        let slots = LayoutGeometry.slots(for: LayoutSpec(kind: .grid), outputWidth: 1920, outputHeight: 1080, streamCount: 4)
        let gap = PiPMargin.percent(2).pixels(outputWidth: 1920)
        #expect(gap == 38)
        #expect(slots[0].rect.x == gap && slots[0].rect.y == gap)
        #expect(slots[1].rect.x == slots[0].rect.x + slots[0].rect.width + gap)
        #expect(slots[2].rect.y == slots[0].rect.y + slots[0].rect.height + gap)
        #expect(slots[3].rect.x + slots[3].rect.width <= 1920 - gap && slots[3].rect.y + slots[3].rect.height <= 1080 - gap)
        let tight = LayoutSpec(kind: .grid, pip: PiPOptions(margin: .pixels(0)))
        #expect(LayoutGeometry.slots(for: tight, outputWidth: 1920, outputHeight: 1080, streamCount: 4).map(\.rect)
                == LayoutGeometry.slots(for: LayoutSpec(kind: .equal), outputWidth: 1920, outputHeight: 1080, streamCount: 4).map(\.rect))
    }

    /// Fitted pictures sit on the background: the bars are background, the picture its
    /// camera's, nothing else.
    @Test func compositorDrawsFittedPicturesOnTheBackground() {
        let sources: [YUV420Image?] = [PictureFixtures.flat(width: 640, height: 360, y: 60, cb: 100, cr: 150),
                                       PictureFixtures.flat(width: 480, height: 640, y: 180, cb: 150, cr: 100)]
        for spec in [LayoutSpec(kind: .equal), LayoutSpec(kind: .grid), LayoutSpec(kind: .dominance),
                     LayoutSpec(kind: .splitVertical, fit: .fit), LayoutSpec(kind: .splitHorizontal, fit: .fit)] {
            let compositor = Compositor(outputWidth: 320, outputHeight: 180, scaler: ReferenceScaler(), spec: spec)
            let frame = compositor.compose(sources)
            var expected = [UInt8](repeating: compositor.background.y, count: 320 * 180)
            for slot in compositor.slots(streamCount: 2) {
                let source = sources[slot.stream]!
                let r = LayoutGeometry.placement(of: slot, sourceWidth: source.width, sourceHeight: source.height).target
                for y in r.y..<(r.y + r.height) {
                    for x in r.x..<(r.x + r.width) { expected[y * 320 + x] = slot.stream == 0 ? 60 : 180 }
                }
            }
            #expect(frame.y == expected, "\(spec)")
        }
    }

    /// Each camera's code read back from the composite, wherever its grid was placed.
    @Test(arguments: ["equal", "grid", "split-vertical:fit", "split-horizontal:fit", "dominance", "dominance:anchor=top",
                      "split-vertical:anchor=center", "grid:fill,anchor=bottom", "pip:size=40,anchor=top"])
    func dctcReadsFromEveryPlacement(text: String) throws {
        let spec = try LayoutSpec(parsing: text)
        let codes: [UInt32] = [0xC0FF_EE42, 0x1234_5678]
        let sources: [YUV420Image?] = codes.enumerated().map { i, code in
            var picture = YUV420Image(width: 1280, height: 720)
            SyntheticPicture.render(frameIndex: Int64(2 + i), into: &picture)
            DCTC.draw(code, into: &picture)
            return picture
        }
        let compositor = Compositor(outputWidth: 1920, outputHeight: 1080, scaler: ReferenceScaler(), spec: spec)
        let frame = compositor.compose(sources)
        for slot in compositor.slots(streamCount: 2) {
            let placement = LayoutGeometry.placement(of: slot, sourceWidth: 1280, sourceHeight: 720)
            #expect(DCTC.read(frame, placement: placement, sourceWidth: 1280, sourceHeight: 720) == codes[slot.stream],
                    "\(text): stream \(slot.stream) at \(placement)")
        }
    }
}
