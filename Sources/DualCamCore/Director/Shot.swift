/// What the programme shows: everybody (the wide shot: the take's own layout, a grid
/// above two cameras), or the people named (one: a single; two or more: a group shot),
/// by their camera's index in the take.
public enum Shot: Sendable, Hashable, CustomStringConvertible {
    case wide
    case people([Int])

    public static func single(_ person: Int) -> Shot { .people([person]) }

    /// The cameras it draws, for `people` cameras in all.
    public func shown(of people: Int) -> [Int] {
        switch self {
        case .wide: Array(0..<people)
        case .people(let shown): shown
        }
    }

    public var description: String {
        switch self {
        case .wide: "wide"
        case .people(let shown): shown.map { String($0 + 1) }.joined(separator: "+")
        }
    }
}

/// One decision: from `atNanoseconds` after T0 on, `shot`.
public struct DirectorCut: Sendable, Hashable {
    public var atNanoseconds: Int64
    public var shot: Shot

    public init(atNanoseconds: Int64, shot: Shot) {
        self.atNanoseconds = atNanoseconds
        self.shot = shot
    }
}

extension Shot {
    /// The layout that draws this shot over the take's `base` layout: a single fills the
    /// frame, a group of two stands side by side (`equal`), and a wide shot is the base
    /// layout itself for two cameras and a grid for more (every face the same size).
    public func layout(base: LayoutSpec, cameras: Int) -> LayoutSpec {
        switch self {
        case .wide:
            guard cameras > 2, base.kind != .grid else { return LayoutSpec(kind: base.kind, fit: base.fit, anchor: base.anchor, pip: base.pip) }
            return LayoutSpec(kind: .grid, pip: base.pip)
        case .people(let shown) where shown.count == 1:
            return LayoutSpec(kind: base.kind, fit: base.fit, anchor: base.anchor, pip: base.pip, shown: shown)
        case .people(let shown) where shown.count == 2:
            var pip = base.pip
            pip.swapped = false
            return LayoutSpec(kind: .equal, pip: pip, shown: shown)
        case .people(let shown):
            return LayoutSpec(kind: .grid, pip: base.pip, shown: shown)
        }
    }
}
