import Testing
@testable import DualCamCore

/// Sessions recorded before issue 21 replay as they were recorded: their layout texts,
/// read under the first edition, draw the frames the first edition's compositor drew.
@Suite struct LayoutEditionTests {
    /// `CompositorTests.goldens` as they were before the names got pictures of their own
    /// (equal and grid were split-horizontal's frame, dominance had its slit).
    static let originalGoldens: [LayoutKind: UInt64] = [
        .pip: 0xd0d0fc7d78e3de54,
        .splitVertical: 0xd60a863f549faf37,
        .splitHorizontal: 0xda019d0193fe7715,
        .dominance: 0xf877c745a7142ef9,
        .equal: 0xda019d0193fe7715,
        .grid: 0xda019d0193fe7715,
    ]

    static func checksum(_ spec: LayoutSpec, width: Int = CompositorTests.width, height: Int = CompositorTests.height) -> UInt64 {
        PictureFixtures.checksum(Compositor(outputWidth: width, outputHeight: height, scaler: ReferenceScaler(), spec: spec)
            .compose(CompositorTests.sources))
    }

    @Test(arguments: LayoutKind.allCases)
    func originalTextsDrawTheOriginalFrames(kind: LayoutKind) throws {
        let spec = try LayoutSpec(parsing: kind.rawValue, edition: .original)
        let sum = Self.checksum(spec)
        #expect(sum == Self.originalGoldens[kind], "\(kind.rawValue) as \(spec): \(PictureFixtures.hex(sum))")
        // What a recompose writes back for it names the same picture under today's rules.
        #expect(try LayoutSpec(parsing: spec.description, edition: .current) == spec)
    }

    /// On a portrait output the first equal was stacked and the first grid side by side,
    /// both filled and centred.
    @Test func originalTextsOnAPortraitOutput() throws {
        let (w, h) = (CompositorTests.height, CompositorTests.width)
        #expect(Self.checksum(try LayoutSpec(parsing: "equal", edition: .original), width: w, height: h)
                == Self.checksum(LayoutSpec(kind: .splitVertical, anchor: .center), width: w, height: h))
        #expect(Self.checksum(try LayoutSpec(parsing: "grid:swap", edition: .original), width: w, height: h)
                == Self.checksum(LayoutSpec(kind: .splitHorizontal, pip: PiPOptions(swapped: true)), width: w, height: h))
    }

    @Test func storedEditions() {
        #expect(LayoutEdition(stored: nil) == .original)
        #expect(LayoutEdition(stored: 1) == .original)
        #expect(LayoutEdition(stored: 2) == .distinctNames)
        #expect(LayoutEdition(stored: 99) == .current)
        #expect(LayoutEdition.current == .distinctNames)
    }
}
