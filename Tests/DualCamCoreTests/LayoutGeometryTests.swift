import Testing
@testable import DualCamCore

@Suite struct LayoutGeometryTests {
    static let outputs = [(1920, 1080), (1280, 720), (1080, 1920), (640, 480), (1918, 1078), (1921, 1081)]

    static var everySpec: [LayoutSpec] {
        var specs: [LayoutSpec] = []
        for kind in LayoutKind.allCases {
            for swapped in [false, true] {
                for position in PiPPosition.allCases {
                    for size in PiPSize.allCases {
                        specs.append(LayoutSpec(kind: kind, pip: PiPOptions(position: position, size: size, swapped: swapped)))
                    }
                }
            }
        }
        return specs
    }

    @Test func rectanglesAreEvenInsideAndEachStreamAppearsOnce() {
        for (w, h) in Self.outputs {
            for spec in Self.everySpec {
                for n in 1...9 {
                    let slots = LayoutGeometry.slots(for: spec, outputWidth: w, outputHeight: h, streamCount: n)
                    #expect(slots.map(\.stream).sorted() == Array(0..<n), "\(spec) n=\(n)")
                    for slot in slots {
                        let r = slot.rect
                        #expect(r.x >= 0 && r.y >= 0 && r.width > 0 && r.height > 0
                                && r.x + r.width <= w && r.y + r.height <= h, "\(spec) \(w)x\(h) n=\(n) \(r)")
                        #expect(r.x % 2 == 0 && r.y % 2 == 0, "\(spec) \(r)")
                        // Sizes are even unless the slot reaches an odd frame edge.
                        #expect(r.width % 2 == 0 || r.x + r.width == w, "\(spec) \(r)")
                        #expect(r.height % 2 == 0 || r.y + r.height == h, "\(spec) \(r)")
                    }
                }
            }
        }
    }

    @Test func fullSlotsTileTheFrameWithoutOverlap() {
        for (w, h) in [(96, 54), (54, 96), (95, 53)] {
            for kind in LayoutKind.allCases {
                for swapped in [false, true] {
                    for size in PiPSize.allCases {
                        let spec = LayoutSpec(kind: kind, pip: PiPOptions(size: size, swapped: swapped))
                        for n in 1...9 { checkTiling(spec, w, h, n) }
                    }
                }
            }
        }
    }

    private func checkTiling(_ spec: LayoutSpec, _ w: Int, _ h: Int, _ n: Int) {
        let slots = LayoutGeometry.slots(for: spec, outputWidth: w, outputHeight: h, streamCount: n)
        var owner = [Int](repeating: 0, count: w * h)
        for slot in slots where !slot.isInset {
            for y in slot.rect.y..<(slot.rect.y + slot.rect.height) {
                for x in slot.rect.x..<(slot.rect.x + slot.rect.width) { owner[y * w + x] += 1 }
            }
        }
        #expect(owner.allSatisfy { $0 <= 1 }, "\(spec) n=\(n) overlaps")
        // Only a grid leaves gaps: `grid` its margins, and the gapless lattice of equal
        // (and of pip when its windows do not fit) a short last row.
        let isLattice = (spec.kind == .equal && n > 2) || (spec.kind == .pip && !slots.contains { $0.isInset })
        var columns = 1
        while columns * columns < n { columns += 1 }
        if (spec.kind != .grid || n == 1) && (!isLattice || n % columns == 0) {
            #expect(owner.allSatisfy { $0 == 1 }, "\(spec) \(w)x\(h) n=\(n) leaves a gap")
        }
    }

    @Test func pictureInPictureDefaults() {
        let slots = LayoutGeometry.slots(for: LayoutSpec(kind: .pip), outputWidth: 1920, outputHeight: 1080, streamCount: 2)
        #expect(slots == [
            Slot(stream: 0, rect: PixelRect(x: 0, y: 0, width: 1920, height: 1080)),
            // 25% of 1920, output aspect, 2% margin (38 px) from the bottom-right corner.
            Slot(stream: 1, rect: PixelRect(x: 1402, y: 772, width: 480, height: 270), isInset: true),
        ])
    }

    @Test func pictureInPictureCornersSizesAndSwap() {
        for size in PiPSize.allCases {
            for position in PiPPosition.allCases {
                let spec = LayoutSpec(kind: .pip, pip: PiPOptions(position: position, size: size, margin: .pixels(20)))
                let slots = LayoutGeometry.slots(for: spec, outputWidth: 1920, outputHeight: 1080, streamCount: 2)
                let inset = slots[1].rect
                #expect(slots[1].isInset && !slots[0].isInset)
                #expect(inset.width == 1920 * size.rawValue / 100 / 2 * 2)
                let expectedHeight = LayoutGeometry.evenNearest(inset.width * 1080, over: 1920)
                #expect(inset.height == expectedHeight)
                let left = inset.x, right = 1920 - inset.x - inset.width
                let top = inset.y, bottom = 1080 - inset.y - inset.height
                switch position {
                case .topLeft: #expect(left == 20 && top == 20)
                case .topRight: #expect(right == 20 && top == 20)
                case .bottomLeft: #expect(left == 20 && bottom == 20)
                case .bottomRight: #expect(right == 20 && bottom == 20)
                case .center: #expect(abs(left - right) <= 2 && abs(top - bottom) <= 2)
                }
            }
        }
        let swapped = LayoutSpec(kind: .pip, pip: PiPOptions(swapped: true))
        let slots = LayoutGeometry.slots(for: swapped, outputWidth: 1920, outputHeight: 1080, streamCount: 2)
        #expect(slots[0].stream == 1 && slots[0].rect.width == 1920)
        #expect(slots[1].stream == 0 && slots[1].isInset)
    }

    @Test func twoCameraLayouts() {
        func rects(_ kind: LayoutKind, _ w: Int = 1920, _ h: Int = 1080) -> [PixelRect] {
            LayoutGeometry.slots(for: LayoutSpec(kind: kind), outputWidth: w, outputHeight: h, streamCount: 2).map(\.rect)
        }
        #expect(rects(.splitVertical) == [PixelRect(x: 0, y: 0, width: 1920, height: 540),
                                          PixelRect(x: 0, y: 540, width: 1920, height: 540)])
        #expect(rects(.splitHorizontal) == [PixelRect(x: 0, y: 0, width: 960, height: 1080),
                                            PixelRect(x: 960, y: 0, width: 960, height: 1080)])
        #expect(rects(.dominance) == [PixelRect(x: 0, y: 0, width: 1920, height: 756),
                                      PixelRect(x: 0, y: 756, width: 1920, height: 324)])
        // Equal has the splits' cells along the long side, and fits its pictures in them.
        #expect(rects(.equal) == rects(.splitHorizontal))
        #expect(rects(.equal, 1080, 1920) == rects(.splitVertical, 1080, 1920))
        // The grid's cells keep the 2% margin (38 px) between and around them.
        #expect(rects(.grid) == [PixelRect(x: 38, y: 38, width: 904, height: 1004),
                                 PixelRect(x: 980, y: 38, width: 902, height: 1004)])
        let swapped = LayoutGeometry.slots(for: LayoutSpec(kind: .dominance, pip: PiPOptions(swapped: true)),
                                           outputWidth: 1920, outputHeight: 1080, streamCount: 2)
        #expect(swapped[0].stream == 1 && swapped[0].rect.height == 756)
    }

    @Test func gaplessLatticeForMoreCameras() {
        let three = LayoutGeometry.slots(for: LayoutSpec(kind: .equal), outputWidth: 1920, outputHeight: 1080, streamCount: 3)
        // 2 columns, 2 rows, the last row's single camera centred.
        #expect(three.map(\.rect) == [PixelRect(x: 0, y: 0, width: 960, height: 540),
                                      PixelRect(x: 960, y: 0, width: 960, height: 540),
                                      PixelRect(x: 480, y: 540, width: 960, height: 540)])
        let five = LayoutGeometry.slots(for: LayoutSpec(kind: .equal), outputWidth: 1920, outputHeight: 1080, streamCount: 5)
        #expect(Set(five.map(\.rect.width)) == [640])
        #expect(five.map(\.rect.y) == [0, 0, 0, 540, 540])
        // Four insets at 40% cannot fit in a row: pip falls back to the grid.
        let pip = LayoutSpec(kind: .pip, pip: PiPOptions(size: .large))
        #expect(LayoutGeometry.slots(for: pip, outputWidth: 1920, outputHeight: 1080, streamCount: 5).map(\.rect) == five.map(\.rect))
        let small = LayoutSpec(kind: .pip, pip: PiPOptions(size: .small))
        let insets = LayoutGeometry.slots(for: small, outputWidth: 1920, outputHeight: 1080, streamCount: 4)
        #expect(insets.filter(\.isInset).count == 3)
    }

    @Test func coverCropFillsWithoutDistortion() {
        #expect(LayoutGeometry.coverCrop(sourceWidth: 1920, sourceHeight: 1080, slotWidth: 960, slotHeight: 1080)
                == PixelRect(x: 480, y: 0, width: 960, height: 1080))
        #expect(LayoutGeometry.coverCrop(sourceWidth: 1920, sourceHeight: 1080, slotWidth: 1920, slotHeight: 324)
                == PixelRect(x: 0, y: 378, width: 1920, height: 324))
        #expect(LayoutGeometry.coverCrop(sourceWidth: 640, sourceHeight: 480, slotWidth: 480, slotHeight: 270)
                == PixelRect(x: 0, y: 60, width: 640, height: 360))
        var seed: UInt64 = 12345
        func next(_ range: ClosedRange<Int>) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return range.lowerBound + Int((seed >> 33) % UInt64(range.count))
        }
        for _ in 0..<2000 {
            let sw = next(2...4000), sh = next(2...4000), tw = next(2...4000), th = next(2...4000)
            let c = LayoutGeometry.coverCrop(sourceWidth: sw, sourceHeight: sh, slotWidth: tw, slotHeight: th)
            #expect(c.x >= 0 && c.y >= 0 && c.x + c.width <= sw && c.y + c.height <= sh)
            #expect(c.x % 2 == 0 && c.y % 2 == 0)
            // No letterbox: one side keeps the whole source; centred within the even rounding.
            #expect(c.width == sw || c.height == sh)
            #expect(abs(c.x - (sw - c.x - c.width)) <= 2 && abs(c.y - (sh - c.y - c.height)) <= 2)
            // No distortion: the crop's aspect is the slot's to within one source pixel
            // (plus one more where a tiny source forces the 2-pixel minimum).
            let error = abs(c.width * th - c.height * tw)
            #expect(error <= 2 * max(tw, th), "\(sw)x\(sh) -> \(tw)x\(th): \(c)")
        }
    }
}
