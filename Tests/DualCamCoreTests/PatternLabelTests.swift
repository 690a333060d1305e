import Testing
@testable import DualCamCore

/// The synthetic pattern's label and colour: drawn where a person sees them, never where
/// the DCTC reader looks.
@Suite struct PatternLabelTests {
    static let host = PatternIdentity(name: "demo-host", role: "host")
    static let guest = PatternIdentity(name: "demo-guest", role: "guest")

    static func frame(_ identity: PatternIdentity?, width: Int, height: Int, index: Int64 = 7,
                      code: UInt32 = 0xA5C3_0F96) -> YUV420Image {
        var image = YUV420Image(width: width, height: height)
        SyntheticPattern(width: width, height: height, identity: identity).render(frameIndex: index, code: code, into: &image)
        return image
    }

    static func lumaRect(_ image: YUV420Image, _ r: PixelRect) -> [UInt8] {
        (r.y..<(r.y + r.height)).flatMap { y in (r.x..<(r.x + r.width)).map { image.luma($0, y) } }
    }

    /// The name "cam-7_b." (lower case drawn as upper case) as the font must draw it, 5x7
    /// glyphs with one column between, written out by hand rather than from the font.
    static let golden = [
        ".###...###..#...#.......#####.......####.......",
        "#...#.#...#.##.##...........#.......#...#......",
        "#.....#...#.#.#.#..........#........#...#......",
        "#.....#####.#.#.#.#####...#.........####.......",
        "#.....#...#.#...#........#..........#...#......",
        "#...#.#...#.#...#........#..........#...#..##..",
        ".###..#...#.#...#........#....#####.####...##..",
    ]

    @Test func theNamePlateIsTheGoldenRenderingScaledOnItsPlate() throws {
        let identity = PatternIdentity(name: "cam-7_b.", role: "camera")
        let image = Self.frame(identity, width: 1280, height: 720)
        let plate = try #require(PatternLabel(identity: identity, width: 1280, height: 720).plates.first)
        let s = plate.scale
        // 47 font pixels plus one of padding each side: 49 at scale 10 fits the 640 px grid.
        #expect(s == 10)
        #expect(plate.rect == PixelRect(x: 394, y: 212, width: 490, height: 90))
        var expected = [UInt8](repeating: PatternLabel.plateLuma, count: plate.rect.width * plate.rect.height)
        for (my, row) in Self.golden.enumerated() {
            for (mx, c) in row.enumerated() where c == "#" {
                for dy in 0..<s {
                    for dx in 0..<s { expected[(s + my * s + dy) * plate.rect.width + s + mx * s + dx] = PatternLabel.textLuma }
                }
            }
        }
        #expect(Self.lumaRect(image, plate.rect) == expected)
    }

    @Test func anUnknownCharacterIsABoxAndEveryGlyphIsItsOwn() {
        let box = BitmapFont.mask("?")
        #expect(box.bits == BitmapFont.mask("#").bits)
        #expect((0..<7).allSatisfy { box.bits[$0 * 5] && box.bits[$0 * 5 + 4] })
        #expect(BitmapFont.mask("a").bits == BitmapFont.mask("A").bits)
        let supported = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let masks = supported.map { BitmapFont.mask(String($0)).bits }
        #expect(Set(masks).count == supported.count, "two characters share a glyph")
        #expect(!masks.contains(box.bits), "a supported character is drawn as the unknown box")
    }

    @Test func twoNamesDrawDifferentLumaInTheLabel() throws {
        let other = PatternIdentity(name: "demo-hast", role: "host")
        let a = Self.frame(Self.host, width: 640, height: 360), b = Self.frame(other, width: 640, height: 360)
        let plates = PatternLabel(identity: Self.host, width: 640, height: 360).plates
        try #require(plates.count == 2)
        #expect(Self.lumaRect(a, plates[0].rect) != Self.lumaRect(b, plates[0].rect))
        #expect(Self.lumaRect(a, plates[1].rect) == Self.lumaRect(b, plates[1].rect), "same role, same second line")
        // And the label is there at all: the unlabelled picture differs in the same place.
        let plain = Self.frame(nil, width: 640, height: 360)
        #expect(Self.lumaRect(a, plates[0].rect) != Self.lumaRect(plain, plates[0].rect))
    }

    @Test(arguments: [(320, 180), (640, 360), (1280, 720), (1920, 1080)])
    func theCodeReadsInLabelledFramesAndTheLabelIsLarge(width: Int, height: Int) throws {
        for identity in [Self.host, Self.guest, PatternIdentity(name: "a-rather-long-node-name.example", role: "camera")] {
            for (i, code) in [UInt32(0), 0xFFFF_FFFF, 0xA5A5_5A5A, 0x1234_5678].enumerated() {
                let image = Self.frame(identity, width: width, height: height, index: Int64(i * 41), code: code)
                #expect(DCTC.read(image) == code)
                let full = PixelRect(x: 0, y: 0, width: width, height: height)
                #expect(DCTC.read(image, slot: full, sourceWidth: width, sourceHeight: height) == code)
            }
        }
        // The demo's names: cap height (7 font pixels) close to a tenth of the frame; at
        // 320x180 the grid's 160 px width holds "DEMO-GUEST" at scale 2 only.
        let percent = height >= 360 ? 9 : 7
        for identity in [Self.host, Self.guest] {
            let plates = PatternLabel(identity: identity, width: width, height: height).plates
            try #require(plates.count == 2)
            for plate in plates {
                #expect(plate.scale * 7 * 100 >= height * percent, "cap height \(plate.scale * 7) px of \(height)")
            }
        }
    }

    /// Each plate keeps out of the grid with a margin, and stays in the central half of
    /// the frame each way, which is what a half-width or half-height slot keeps.
    @Test(arguments: [(320, 180), (640, 360), (1280, 720), (1920, 1080), (1279, 719), (642, 362)])
    func platesStayClearOfTheGridAndInTheCentralHalf(width: Int, height: Int) throws {
        let g = DCTC.Geometry(width: width, height: height)
        let name = "a-long-name-that-must-be-cut-to-fit-the-width-of-the-grid-0123456789"
        let plates = PatternLabel(identity: PatternIdentity(name: name, role: "guest"), width: width, height: height).plates
        try #require(plates.count == 2)
        for p in plates.map(\.rect) {
            #expect(p.x % 2 == 0 && p.y % 2 == 0 && p.width % 2 == 0 && p.height % 2 == 0)
            #expect(p.x >= g.originX && p.x + p.width <= g.originX + g.gridWidth)
            #expect(p.y >= height / 4 && p.y + p.height <= height - height / 4)
            let above = p.y + p.height + 2 <= g.originY, below = p.y >= g.originY + g.gridHeight + 2
            #expect(above || below, "plate \(p) too close to the grid at y \(g.originY)..<\(g.originY + g.gridHeight)")
        }
    }

    @Test(arguments: [(320, 180), (643, 363), (1920, 1080)])
    func nothingInsideTheGridChangesWithTheLabel(width: Int, height: Int) {
        let g = DCTC.Geometry(width: width, height: height)
        for identity in [Self.host, Self.guest] {
            let labelled = Self.frame(identity, width: width, height: height), plain = Self.frame(nil, width: width, height: height)
            var lumaSame = true, chromaSame = true
            for y in g.originY..<(g.originY + g.gridHeight) {
                for x in g.originX..<(g.originX + g.gridWidth) {
                    lumaSame = lumaSame && labelled.luma(x, y) == plain.luma(x, y)
                    let c = (y / 2) * labelled.chromaStride + x / 2
                    chromaSame = chromaSame && labelled.cb[c] == plain.cb[c] && labelled.cr[c] == plain.cr[c]
                }
            }
            #expect(lumaSame && chromaSame)
        }
    }

    @Test func hostAndGuestWashTheBackgroundInOppositeColours() {
        /// The top eighth (background only, away from label and grid) over eight frames
        /// spread across the wash's 256-step drift, so the wash's swing averages out.
        func meanChroma(_ identity: PatternIdentity?) -> (cb: Double, cr: Double) {
            var cb = 0, cr = 0, n = 0
            for f in stride(from: Int64(0), to: 128, by: 16) {
                let image = Self.frame(identity, width: 640, height: 360, index: f)
                for y in 0..<(image.chromaHeight / 8) {
                    for x in 0..<image.chromaWidth {
                        cb += Int(image.cb[y * image.chromaStride + x])
                        cr += Int(image.cr[y * image.chromaStride + x])
                        n += 1
                    }
                }
            }
            return (Double(cb) / Double(n), Double(cr) / Double(n))
        }
        let host = meanChroma(Self.host), guest = meanChroma(Self.guest), plain = meanChroma(nil)
        #expect(abs(plain.cb - 128) < 4 && abs(plain.cr - 128) < 4, "plain \(plain)")
        // Warm: blue difference below neutral and red above; cool the other way round.
        #expect(host.cb < 108 && host.cr > 148, "host \(host)")
        #expect(guest.cb > 148 && guest.cr < 108, "guest \(guest)")
        // Further cameras take a colour from the name, the same on every run.
        let third = PatternIdentity(name: "demo-camera3", role: "camera")
        #expect(third.tint == PatternIdentity(name: "demo-camera3", role: "camera").tint)
        #expect(![ChromaTint.orange, .blue].contains(third.tint))
    }

    @Test func withNoIdentityThePatternIsTheOldOne() {
        var old = YUV420Image(width: 640, height: 360)
        SyntheticPicture.render(frameIndex: 9, into: &old)
        DCTC.draw(0x0BAD_F00D, into: &old)
        #expect(Self.frame(nil, width: 640, height: 360, index: 9, code: 0x0BAD_F00D) == old)
    }

    @Test(arguments: [(2, 2), (33, 17), (64, 36), (128, 72)])
    func aFrameTooSmallForTextGetsNoLabelAndStillItsCode(width: Int, height: Int) {
        let label = PatternLabel(identity: Self.host, width: width, height: height)
        #expect(label.plates.count <= 2)
        let image = Self.frame(Self.host, width: width, height: height, code: 0x8000_0001)
        if DCTC.Geometry(width: width, height: height).cellHeight > 0 { #expect(DCTC.read(image) == 0x8000_0001) }
    }
}
