import Testing
@testable import DualCamCore

/// Issue 21, item 11, for two cameras: each name draws its own picture, split-vertical
/// keeps heads, dominance's small picture is a picture and not a slit, and p does
/// something in every layout or says why not. The first three are judged on composed
/// frames, so they hold whatever the geometry's internals.
@Suite struct LayoutNamesTests {
    /// Two 16:9 cameras whose pictures differ everywhere.
    static let cameras: [YUV420Image?] = [
        PictureFixtures.pattern(width: 640, height: 360, seed: 1),
        PictureFixtures.pattern(width: 640, height: 360, seed: 2),
    ]

    static func frame(_ spec: LayoutSpec, width: Int = 640, height: Int = 360,
                      sources: [YUV420Image?] = cameras) -> YUV420Image {
        Compositor(outputWidth: width, outputHeight: height, scaler: ReferenceScaler(), spec: spec).compose(sources)
    }

    /// The studio shows "Side by side" and "Stacked"; `recompose --layout side-by-side`
    /// refused them. Every name a screen shows is a layout everywhere.
    @Test func theNamesTheStudioShowsAreLayouts() throws {
        #expect(try LayoutSpec(parsing: "side-by-side").kind == .splitHorizontal)
        #expect(try LayoutSpec(parsing: "Side by side").kind == .splitHorizontal)
        #expect(try LayoutSpec(parsing: "stacked:swap").kind == .splitVertical)
        #expect(try LayoutSpec(parsing: "Picture-in-picture").kind == .pip)
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "sideways") }
    }

    @Test(arguments: [(640, 360), (360, 640), (1280, 720)])
    func everyNameIsADistinctPicture(width: Int, height: Int) {
        var seen: [UInt64: LayoutKind] = [:]
        for kind in LayoutKind.allCases {
            let sum = PictureFixtures.checksum(Self.frame(LayoutSpec(kind: kind), width: width, height: height))
            if let other = seen[sum] {
                Issue.record("\(kind.rawValue) draws the same \(width)x\(height) frame as \(other.rawValue)")
            }
            seen[sum] = kind
        }
    }

    /// A camera with a bright head at the top of its picture and a dark caption at the
    /// bottom, over a mid grey.
    static func headAndCaption() -> YUV420Image {
        var picture = PictureFixtures.flat(width: 640, height: 360, y: 120)
        for row in 0..<360 where row < 40 || row >= 320 {
            for x in 0..<640 { picture.y[row * picture.lumaStride + x] = row < 40 ? 220 : 20 }
        }
        return picture
    }

    @Test func splitVerticalKeepsTheTopOfEachCamera() {
        let frame = Self.frame(LayoutSpec(kind: .splitVertical), sources: [Self.headAndCaption(), Self.headAndCaption()])
        let bands = LayoutGeometry.slots(for: LayoutSpec(kind: .splitVertical), outputWidth: 640, outputHeight: 360, streamCount: 2)
        for band in bands {
            // The head: the first rows of each band are the camera's first rows.
            #expect(frame.luma(320, band.rect.y + 2) == 220, "band \(band.rect): the head is cut off")
        }
    }

    @Test func dominanceSmallPictureKeepsASaneAspect() {
        let large = PictureFixtures.flat(width: 640, height: 360, y: 60)
        let small = PictureFixtures.flat(width: 640, height: 360, y: 200)
        for (width, height) in [(640, 360), (1280, 720), (360, 640)] {
            let frame = Self.frame(LayoutSpec(kind: .dominance), width: width, height: height, sources: [large, small])
            var left = width, right = -1, top = height, bottom = -1
            for y in 0..<height {
                for x in 0..<width where frame.luma(x, y) == 200 {
                    left = min(left, x); right = max(right, x); top = min(top, y); bottom = max(bottom, y)
                }
            }
            let w = right - left + 1, h = bottom - top + 1
            #expect(w > 0 && h > 0, "no small picture in \(width)x\(height)")
            let aspect = Double(w) / Double(max(h, 1))
            // The camera's own 16:9 (1.78), give or take rounding; 640x108 was 5.9.
            #expect((1.6...2.0).contains(aspect), "\(width)x\(height): small picture \(w)x\(h)")
            #expect(h * 5 >= height, "\(width)x\(height): small picture \(w)x\(h) is under a fifth of the height")
        }
    }

    @Test(arguments: [LayoutKind.splitVertical, .splitHorizontal])
    func pInASplitChangesThePicture(kind: LayoutKind) throws {
        for (width, height) in [(640, 360), (360, 640)] {
            var spec = LayoutSpec(kind: kind)
            var frames = [PictureFixtures.checksum(Self.frame(spec, width: width, height: height))]
            // Every press changes the frame, until the cycle comes back to the start.
            for _ in 0..<4 {
                spec = try spec.nextPlacement(outputWidth: width, outputHeight: height, sourceWidth: 640,
                                              sourceHeight: 360, streamCount: 2)
                let sum = PictureFixtures.checksum(Self.frame(spec, width: width, height: height))
                #expect(sum != frames.last, "\(spec) at \(width)x\(height): p changed nothing")
                frames.append(sum)
                if spec == LayoutSpec(kind: kind) { break }
            }
            #expect(spec == LayoutSpec(kind: kind), "the cycle does not come back: \(spec)")
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func pChangesThePictureOrSaysWhyNot(kind: LayoutKind) {
        for count in [1, 2, 3] {
            let sources = Array((Self.cameras + Self.cameras).prefix(count))
            let spec = LayoutSpec(kind: kind)
            do {
                let next = try spec.nextPlacement(outputWidth: 640, outputHeight: 360, sourceWidth: 640,
                                                  sourceHeight: 360, streamCount: count)
                #expect(PictureFixtures.checksum(Self.frame(next, sources: sources))
                        != PictureFixtures.checksum(Self.frame(spec, sources: sources)), "\(kind) x\(count): \(next)")
            } catch {
                // Only where it is true: every framing (or window position) draws this frame.
                #expect(error.message.hasPrefix("p "), "\(error)")
                let now = PictureFixtures.checksum(Self.frame(spec, sources: sources))
                let others = kind == .pip
                    ? PiPPosition.allCases.map { LayoutSpec(kind: .pip, pip: PiPOptions(position: $0)) }
                    : CropAnchor.allCases.map { LayoutSpec(kind: kind, fit: .fill, anchor: $0) } + [LayoutSpec(kind: kind, fit: .fit)]
                for other in others {
                    #expect(PictureFixtures.checksum(Self.frame(other, sources: sources)) == now,
                            "\(kind) x\(count): p said nothing changes, but \(other) does")
                }
            }
        }
    }
}
