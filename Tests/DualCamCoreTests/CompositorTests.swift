import Testing
@testable import DualCamCore

@Suite struct CompositorTests {
    static let width = 320, height = 180

    /// Two sources of different sizes and aspects, with padded rows.
    static let sources: [YUV420Image?] = [
        PictureFixtures.pattern(width: 320, height: 180, seed: 1, lumaPadding: 3, chromaPadding: 5),
        PictureFixtures.pattern(width: 256, height: 192, seed: 2, lumaPadding: 7, chromaPadding: 1),
    ]

    static let goldenSpecs: [(String, LayoutSpec)] = [
        ("pip", LayoutSpec(kind: .pip)),
        ("pip-swapped-top-left-shadow", LayoutSpec(kind: .pip, pip: PiPOptions(
            position: .topLeft, size: .large, swapped: true, borderWidth: 3, cornerRadius: 10, shadow: true))),
        ("split-vertical", LayoutSpec(kind: .splitVertical)),
        ("split-horizontal", LayoutSpec(kind: .splitHorizontal)),
        ("dominance", LayoutSpec(kind: .dominance)),
        ("equal", LayoutSpec(kind: .equal)),
        ("grid", LayoutSpec(kind: .grid)),
    ]

    /// Every name its own frame (`LayoutEditionTests` keeps the first edition's).
    static let goldens: [String: UInt64] = [
        "pip": 0xd0d0fc7d78e3de54,
        "pip-swapped-top-left-shadow": 0xc62b2fc2edbd98df,
        "split-vertical": 0x27ce23292fc1b0f9,
        "split-horizontal": 0xda019d0193fe7715,
        "dominance": 0x0132a8d17190bdae,
        "equal": 0x3c36b3834310d7e2,
        "grid": 0xb8939a227d7e54a1,
    ]

    @Test(arguments: goldenSpecs.map(\.0))
    func goldenChecksum(name: String) {
        let spec = Self.goldenSpecs.first { $0.0 == name }!.1
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height,
                                    scaler: ReferenceScaler(), spec: spec)
        let frame = compositor.compose(Self.sources)
        let sum = PictureFixtures.checksum(frame)
        #expect(sum == Self.goldens[name], "\(name): \(PictureFixtures.hex(sum))")
    }

    /// Flat sources make every pixel's owner visible: stream 0 is Y 60, stream 1 Y 180.
    static let flatSources: [YUV420Image?] = [
        PictureFixtures.flat(width: 640, height: 360, y: 60, cb: 100, cr: 150),
        PictureFixtures.flat(width: 200, height: 300, y: 180, cb: 150, cr: 100),
    ]

    @Test(arguments: LayoutKind.allCases)
    func everySlotIsFilledByItsStream(kind: LayoutKind) {
        for swapped in [false, true] {
            let spec = LayoutSpec(kind: kind, pip: PiPOptions(swapped: swapped, borderWidth: 0, cornerRadius: 0))
            let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height,
                                        scaler: ReferenceScaler(), spec: spec)
            let frame = compositor.compose(Self.flatSources)
            let slots = compositor.slots(streamCount: 2)
            // Paint the owners back to front: the topmost picture containing a pixel owns
            // it; a pixel no picture covers (a fitted picture's bars, a grid's margins) is
            // the background.
            var owner = [Int](repeating: -1, count: Self.width * Self.height)
            let targets = slots.map { slot in
                LayoutGeometry.placement(of: slot, sourceWidth: Self.flatSources[slot.stream]!.width,
                                         sourceHeight: Self.flatSources[slot.stream]!.height).target
            }
            for (slot, r) in zip(slots, targets) {
                for y in r.y..<(r.y + r.height) {
                    for x in r.x..<(r.x + r.width) { owner[y * Self.width + x] = slot.stream }
                }
            }
            if slots.allSatisfy({ $0.fit == .fill }) && kind != .grid {
                #expect(!owner.contains(-1), "\(spec) leaves pixels uncovered")
            }
            let expected = owner.map { UInt8($0 == -1 ? 16 : $0 == 0 ? 60 : 180) }
            #expect(frame.y == expected, "\(spec)")
            let cx = targets[0].x / 2 + 1, cy = targets[0].y / 2 + 1
            #expect(frame.cb[cy * frame.chromaStride + cx] == (slots[0].stream == 0 ? 100 : 150))
            #expect(frame.cr[cy * frame.chromaStride + cx] == (slots[0].stream == 0 ? 150 : 100))
        }
    }

    @Test func swappedPutsStreamOneLarge() {
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height, scaler: ReferenceScaler(),
                                    spec: LayoutSpec(kind: .pip, pip: PiPOptions(swapped: true)))
        let frame = compositor.compose(Self.flatSources)
        #expect(frame.luma(10, 10) == 180)
        let inset = compositor.slots(streamCount: 2)[1].rect
        #expect(inset.x > Self.width / 2 && inset.y > Self.height / 2, "default corner is bottom-right")
        #expect(frame.luma(inset.x + inset.width / 2, inset.y + inset.height / 2) == 60)
    }

    @Test func stridesDoNotChangeTheResult() {
        let tight: [YUV420Image?] = [
            PictureFixtures.pattern(width: 320, height: 180, seed: 1),
            PictureFixtures.pattern(width: 256, height: 192, seed: 2),
        ]
        let odd: [YUV420Image?] = [
            PictureFixtures.pattern(width: 320, height: 180, seed: 1, lumaPadding: 13, chromaPadding: 3),
            PictureFixtures.pattern(width: 256, height: 192, seed: 2, lumaPadding: 1, chromaPadding: 9),
        ]
        for kind in LayoutKind.allCases {
            let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height,
                                        scaler: ReferenceScaler(), spec: LayoutSpec(kind: kind))
            let a = compositor.compose(tight), b = compositor.compose(odd)
            #expect(a == b, "\(kind)")
            #expect(!b.y.contains(0xEE), "row padding leaked into \(kind)")
        }
    }

    @Test func roundedCornersAndBorderAreAntialiased() {
        let options = PiPOptions(size: .large, borderWidth: 4, borderColor: .white, cornerRadius: 16)
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height,
                                    scaler: ReferenceScaler(), spec: LayoutSpec(kind: .pip, pip: options))
        let frame = compositor.compose(Self.flatSources)
        let r = compositor.slots(streamCount: 2)[1].rect
        // The very corner is outside the curve: the large picture shows through.
        #expect(frame.luma(r.x, r.y) == 60)
        // Straight edges are crisp: border on the edge, picture right after it.
        let midY = r.y + r.height / 2
        #expect(frame.luma(r.x, midY) == 235 && frame.luma(r.x + 3, midY) == 235)
        #expect(frame.luma(r.x + 4, midY) == 180)
        // Along the outer curve, pixels mix background and border.
        var outerMixes = 0, innerMixes = 0
        for y in r.y..<(r.y + 16) {
            for x in r.x..<(r.x + 16) {
                let v = frame.luma(x, y)
                if v > 60 && v < 235 && (x - r.x) + (y - r.y) < 12 { outerMixes += 1 }
                if v > 180 && v < 235 && (x - r.x) + (y - r.y) >= 12 { innerMixes += 1 }
            }
        }
        #expect(outerMixes >= 6, "outer curve not antialiased")
        #expect(innerMixes >= 4, "inner curve not antialiased")
        // Symmetric at the opposite corner.
        #expect(frame.luma(r.x + r.width - 1, r.y + r.height - 1) == 60)
        #expect(frame.luma(r.x + 3, r.y + 3) == frame.luma(r.x + r.width - 4, r.y + r.height - 4))
    }

    @Test func borderColourIsSettable() {
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height, scaler: ReferenceScaler(),
                                    spec: LayoutSpec(kind: .pip, pip: PiPOptions(borderWidth: 2, borderColor: YCbCrColor(y: 81, cb: 90, cr: 240))))
        let frame = compositor.compose(Self.flatSources)
        let r = compositor.slots(streamCount: 2)[1].rect
        let midY = r.y + r.height / 2
        #expect(frame.luma(r.x, midY) == 81)
        #expect(frame.cr[(midY / 2) * frame.chromaStride + r.x / 2] == 240)
    }

    @Test func shadowDarkensBelowRightOnly() {
        let plain = Compositor(outputWidth: Self.width, outputHeight: Self.height, scaler: ReferenceScaler(),
                               spec: LayoutSpec(kind: .pip, pip: PiPOptions(position: .center)))
        let shaded = Compositor(outputWidth: Self.width, outputHeight: Self.height, scaler: ReferenceScaler(),
                                spec: LayoutSpec(kind: .pip, pip: PiPOptions(position: .center, shadow: true)))
        let a = plain.compose(Self.flatSources), b = shaded.compose(Self.flatSources)
        let r = shaded.slots(streamCount: 2)[1].rect
        let below = (r.x + r.width / 2, r.y + r.height + 1)
        #expect(b.luma(below.0, below.1) < a.luma(below.0, below.1))
        #expect(b.luma(below.0, below.1) > 16)
        #expect(b.luma(2, 2) == a.luma(2, 2))
        #expect(b.luma(r.x + r.width / 2, r.y + r.height / 2) == 180, "the window itself is not shaded")
    }

    @Test func missingSourceShowsNoSignal() {
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height,
                                    scaler: ReferenceScaler(), spec: LayoutSpec(kind: .splitHorizontal))
        let frame = compositor.compose([Self.flatSources[0], nil])
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                if frame.luma(x, y) != (x < 160 ? 60 : 32) {
                    Issue.record("pixel \(x),\(y) is \(frame.luma(x, y))")
                    return
                }
            }
        }
        #expect(frame.cb[frame.chromaStride * 10 + 100] == 128 && frame.cr[frame.chromaStride * 10 + 100] == 128)
        let empty = compositor.compose([nil, nil])
        #expect(empty.y.allSatisfy { $0 == 32 })
    }

    @Test func gridGapsGetTheBackground() {
        // The gapless lattice: its short last row is centred, with background beside it.
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height,
                                    scaler: ReferenceScaler(), spec: LayoutSpec(kind: .equal, fit: .fill))
        let frame = compositor.compose([Self.flatSources[0], Self.flatSources[1], Self.flatSources[0]])
        #expect(frame.luma(0, Self.height - 1) == 16)
        #expect(frame.luma(Self.width / 2, Self.height - 1) == 60)
        // The grid's margins, between the cells and around them.
        let grid = Compositor(outputWidth: Self.width, outputHeight: Self.height,
                              scaler: ReferenceScaler(), spec: LayoutSpec(kind: .grid, fit: .fill))
        let gapped = grid.compose([Self.flatSources[0], Self.flatSources[1], Self.flatSources[0], Self.flatSources[0]])
        let first = grid.slots(streamCount: 4)[0].rect
        #expect(gapped.luma(first.x - 1, first.y + 10) == 16 && gapped.luma(first.x + 10, first.y - 1) == 16)
        #expect(gapped.luma(first.x + first.width, first.y + 10) == 16)
        #expect(gapped.luma(first.x, first.y) == 60)
    }

    @Test func layoutChangesBetweenFrames() {
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height, scaler: ReferenceScaler())
        let pip = compositor.compose(Self.flatSources)
        compositor.spec = LayoutSpec(kind: .splitVertical)
        let split = compositor.compose(Self.flatSources)
        #expect(pip.luma(10, Self.height - 10) == 60)
        #expect(split.luma(10, Self.height - 10) == 180)
    }

    @Test func scalerIsBypassedForSourcesOfTheSlotSize() {
        final class CountingScaler: Scaler {
            var calls = 0
            func scale(_ source: YUV420Image, crop: PixelRect, toWidth width: Int, height: Int) -> YUV420Image {
                calls += 1
                return ReferenceScaler().scale(source, crop: crop, toWidth: width, height: height)
            }
        }
        let scaler = CountingScaler()
        let compositor = Compositor(outputWidth: Self.width, outputHeight: Self.height, scaler: scaler)
        _ = compositor.compose([PictureFixtures.flat(width: 320, height: 180, y: 50), Self.flatSources[1]])
        #expect(scaler.calls == 1)
    }
}
