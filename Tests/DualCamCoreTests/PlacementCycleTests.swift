import Testing
@testable import DualCamCore

/// The steps `p` takes, as text: what the manifest's layout timeline records.
@Suite struct PlacementCycleTests {
    static func presses(_ text: String, _ count: Int, width: Int = 1920, height: Int = 1080,
                        streams: Int = 2) throws -> [String] {
        var spec = try LayoutSpec(parsing: text)
        var texts: [String] = []
        for _ in 0..<count {
            spec = try spec.nextPlacement(outputWidth: width, outputHeight: height, sourceWidth: 1920, sourceHeight: 1080,
                                          streamCount: streams)
            texts.append(spec.description)
        }
        return texts
    }

    @Test func pipMovesTheWindow() throws {
        #expect(try Self.presses("pip", 5) == ["pip:position=center", "pip:position=top-left", "pip:position=top-right",
                                               "pip:position=bottom-left", "pip"])
    }

    @Test func stackedBandsStepThroughEveryFraming() throws {
        #expect(try Self.presses("split-vertical", 4) == ["split-vertical:anchor=center", "split-vertical:anchor=bottom",
                                                          "split-vertical:fit", "split-vertical"])
    }

    /// A column crops the sides, where the anchor changes nothing: those steps are skipped.
    @Test func sideBySideSkipsStepsThatChangeNothing() throws {
        #expect(try Self.presses("split-horizontal:swap", 2) == ["split-horizontal:fit,swap", "split-horizontal:swap"])
        #expect(try Self.presses("equal", 2) == ["equal:fill", "equal"])
        // Stacked on a portrait output, equal's cells are still narrower than a camera.
        #expect(try Self.presses("equal", 2, width: 1080, height: 1920) == ["equal:fill", "equal"])
    }

    @Test func dominanceKeepsItsSmallPicturesWholeWhenFilled() throws {
        #expect(try Self.presses("dominance", 4) == ["dominance:anchor=bottom", "dominance:fit", "dominance:anchor=top",
                                                     "dominance"])
    }

    @Test func saysWhatPDoesWhereNothingWouldChange() {
        for kind in LayoutKind.allCases {
            do {
                _ = try Self.presses(kind.rawValue, 1, streams: 1)
                Issue.record("\(kind.rawValue) with one camera of the output's shape: p changed something")
            } catch {
                #expect("\(error)".contains(kind == .pip ? "window" : "fill from the top"), "\(error)")
            }
        }
    }
}
