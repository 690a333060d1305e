import Testing
@testable import DualCamCore

@Suite struct LayoutSpecTests {
    @Test func commandLineNames() throws {
        #expect(LayoutKind.allCases.map(\.rawValue)
                == ["pip", "split-vertical", "split-horizontal", "dominance", "equal", "grid"])
        #expect(PiPPosition.allCases.map(\.rawValue)
                == ["top-left", "top-right", "bottom-left", "bottom-right", "center"])
        for kind in LayoutKind.allCases {
            #expect(try LayoutSpec(parsing: kind.rawValue) == LayoutSpec(kind: kind))
        }
    }

    @Test func defaults() {
        let pip = PiPOptions()
        #expect(pip.position == .bottomRight)
        #expect(pip.sizePercent == 25)
        #expect(!pip.swapped)
        #expect(!pip.shadow)
    }

    @Test func parsesOptions() throws {
        let spec = try LayoutSpec(parsing: "pip:position=top-left,size=40%,margin=24px,swap,border=6,border-color=16/128/128,radius=20,shadow")
        #expect(spec.kind == .pip)
        #expect(spec.pip.position == .topLeft)
        #expect(spec.pip.sizePercent == 40)
        #expect(spec.pip.margin == .pixels(24))
        #expect(spec.pip.swapped)
        #expect(spec.pip.borderWidth == 6)
        #expect(spec.pip.borderColor == .black)
        #expect(spec.pip.cornerRadius == 20)
        #expect(spec.pip.shadow)
        #expect(try LayoutSpec(parsing: spec.description) == spec)
        #expect(try LayoutSpec(parsing: "split-vertical:swap=false") == LayoutSpec(kind: .splitVertical))
    }

    @Test func rejectsUnofferedSizes() {
        #expect(throws: LayoutError.self) { try PiPOptions(sizePercent: 30) }
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "pip:size=50") }
        do {
            _ = try PiPSize(percent: 33)
            Issue.record("33% accepted")
        } catch {
            #expect(error.message.contains("15, 25 or 40"))
        }
        #expect(throws: Never.self) { try PiPOptions(sizePercent: 15) }
    }

    @Test func rejectsUnknownNamesWithTheValidOnes() {
        do {
            _ = try LayoutSpec(parsing: "mosaic")
            Issue.record("unknown layout accepted")
        } catch {
            #expect(error.message.contains("split-horizontal"))
        }
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "pip:position=middle") }
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "pip:opacity=3") }
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "pip:border=-2") }
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "pip:margin=40%") }
    }

    @Test func parsesFitAndAnchor() throws {
        #expect(try LayoutSpec(parsing: "split-vertical:fit") == LayoutSpec(kind: .splitVertical, fit: .fit))
        #expect(try LayoutSpec(parsing: "grid:fit=fill,anchor=centre") == LayoutSpec(kind: .grid, fit: .fill, anchor: .center))
        #expect(try LayoutSpec(parsing: "equal: fill , anchor=TOP") == LayoutSpec(kind: .equal, fit: .fill, anchor: .top))
        #expect(try LayoutSpec(parsing: "dominance:fit=fit,anchor=bottom,swap")
                == LayoutSpec(kind: .dominance, fit: .fit, anchor: .bottom, pip: PiPOptions(swapped: true)))
        for bad in ["grid:fit=stretch", "grid:anchor=left", "grid:fill=true", "grid:anchor", "grid:crop=top"] {
            #expect(throws: LayoutError.self, "\(bad)") { try LayoutSpec(parsing: bad) }
        }
    }

    @Test func everySpecRoundTripsThroughItsText() throws {
        for kind in LayoutKind.allCases {
            for fit in [nil] + LayoutFit.allCases.map(Optional.some) {
                for anchor in [nil] + CropAnchor.allCases.map(Optional.some) {
                    for pip in [PiPOptions(), PiPOptions(position: .topLeft, size: .large, margin: .pixels(0), swapped: true,
                                                        borderWidth: 0, borderColor: .grey, cornerRadius: 3, shadow: true)] {
                        let spec = LayoutSpec(kind: kind, fit: fit, anchor: anchor, pip: pip)
                        #expect(try LayoutSpec(parsing: spec.description) == spec, "\(spec)")
                    }
                }
            }
        }
        #expect(LayoutSpec(kind: .splitVertical, fit: .fit).description == "split-vertical:fit")
        #expect(LayoutSpec(kind: .grid, fit: .fill, anchor: .top, pip: PiPOptions(margin: .pixels(0))).description
                == "grid:fill,anchor=top,margin=0px")
    }

    /// Texts written before fit and anchor existed (manifests, session.json, the remembered
    /// layout) still parse, to the spec they meant then, with no framing chosen.
    @Test func textsWrittenBeforeFitAndAnchorStillParse() throws {
        let written: [(String, LayoutSpec)] = [
            ("pip", LayoutSpec(kind: .pip)),
            ("split-vertical", LayoutSpec(kind: .splitVertical)),
            ("split-horizontal", LayoutSpec(kind: .splitHorizontal)),
            ("dominance", LayoutSpec(kind: .dominance)),
            ("equal", LayoutSpec(kind: .equal)),
            ("grid", LayoutSpec(kind: .grid)),
            ("pip:size=40", LayoutSpec(kind: .pip, pip: PiPOptions(size: .large))),
            ("pip:size=40,swap", LayoutSpec(kind: .pip, pip: PiPOptions(size: .large, swapped: true))),
            ("pip:position=top-right,size=15,margin=24px,border=6,border-color=16/128/128,radius=20,shadow",
             LayoutSpec(kind: .pip, pip: PiPOptions(position: .topRight, size: .small, margin: .pixels(24), borderWidth: 6,
                                                    borderColor: .black, cornerRadius: 20, shadow: true))),
            ("split-horizontal:swap", LayoutSpec(kind: .splitHorizontal, pip: PiPOptions(swapped: true))),
            ("grid:position=center", LayoutSpec(kind: .grid, pip: PiPOptions(position: .center))),
        ]
        for (text, spec) in written {
            #expect(try LayoutSpec(parsing: text) == spec, "\(text)")
            #expect(spec.description == text, "\(text)")
        }
    }

    @Test func switchingKindKeepsTheOptionsAndDropsTheFraming() {
        let spec = LayoutSpec(kind: .splitVertical, fit: .fit, anchor: .bottom, pip: PiPOptions(position: .topLeft, swapped: true))
        #expect(spec.switching(to: .grid) == LayoutSpec(kind: .grid, pip: PiPOptions(position: .topLeft, swapped: true)))
    }
}
