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
}
