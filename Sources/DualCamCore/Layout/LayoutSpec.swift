/// A complete layout choice: the kind, how its pictures meet their slots, and the
/// picture-in-picture options.
public struct LayoutSpec: Sendable, Hashable, CustomStringConvertible {
    public var kind: LayoutKind
    /// Nil: the kind's own (`LayoutKind.defaultFit`). A choice applies to every picture
    /// except a picture-in-picture window, which is always filled.
    public var fit: LayoutFit?
    /// Nil: the kind's own (`LayoutKind.defaultAnchor`).
    public var anchor: CropAnchor?
    public var pip: PiPOptions
    /// The streams drawn, in order (0-based); nil draws every camera. A director's shot of
    /// one or two people among the cameras is the layout over just those.
    public var shown: [Int]?

    public init(kind: LayoutKind, fit: LayoutFit? = nil, anchor: CropAnchor? = nil, pip: PiPOptions = PiPOptions(),
                shown: [Int]? = nil) {
        self.kind = kind
        self.fit = fit
        self.anchor = anchor
        self.pip = pip
        self.shown = shown
    }

    /// The streams this spec draws for `streamCount` cameras: `shown` without indices out
    /// of range or repeated, or every camera when that leaves none.
    public func shownStreams(of streamCount: Int) -> [Int] {
        var seen = Set<Int>()
        let kept = (shown ?? []).filter { (0..<streamCount).contains($0) && seen.insert($0).inserted }
        return kept.isEmpty ? Array(0..<streamCount) : kept
    }

    /// Parses `NAME[:key=value,...]`, e.g. `pip:position=top-left,size=40,swap,shadow`
    /// or `split-vertical:fit`.
    ///
    /// Keys: `fit` (alone, or `fit=fill|fit`), `fill` (alone: the same as `fit=fill`),
    /// `anchor` (`top`, `center`/`centre`, `bottom`), `position`, `size` (15/25/40),
    /// `margin` (`2%` or `24px`), `swap` (`swap`, `swap=true|false`), `border` (width in
    /// px), `border-color` (`white`, `black`, `grey` or `Y/Cb/Cr`), `radius` (px),
    /// `shadow` (`shadow`, `shadow=true|false`), `show` (the cameras drawn, numbered from
    /// 1 in the take's order and joined by `+`: `show=2`, `show=1+3`). Options apply to every kind because
    /// `swap`, `fit` and `anchor` do.
    public init(parsing text: String) throws(LayoutError) {
        let trimmed = text.trimmingSpaces
        let name: Substring
        let optionText: Substring?
        if let colon = trimmed.firstIndex(of: ":") {
            name = trimmed[..<colon]
            optionText = trimmed[trimmed.index(after: colon)...]
        } else {
            name = trimmed[...]
            optionText = nil
        }
        var spec = LayoutSpec(kind: try LayoutKind.parse(String(name)))
        for item in optionText?.split(separator: ",") ?? [] {
            let pair = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
            let key = pair[0].lowercased(), value = pair.count > 1 ? pair[1] : nil
            switch (key, value) {
            case ("fit", nil): spec.fit = .fit
            case ("fit", let value?): spec.fit = try LayoutFit.parse(value)
            case ("fill", nil): spec.fit = .fill
            case ("fill", _): throw LayoutError("layout option 'fill' takes no value; write fill, fit or fit=fill|fit")
            case ("anchor", let value?): spec.anchor = try CropAnchor.parse(value)
            case ("anchor", nil): throw LayoutError("layout option 'anchor' needs a value: top, center or bottom")
            case ("show", let value?): spec.shown = try Self.parseShown(value)
            case ("show", nil): throw LayoutError("layout option 'show' needs the cameras to draw, numbered from 1: show=2 or show=1+3")
            default: try spec.pip.apply(key: key, value: value)
            }
        }
        self = spec
    }

    /// The canonical text form, accepted by `init(parsing:)`.
    public var description: String {
        guard self != LayoutSpec(kind: kind) else { return kind.rawValue }
        var parts: [String] = []
        if let fit { parts.append(fit.rawValue) }
        if let anchor { parts.append("anchor=\(anchor.rawValue)") }
        let d = PiPOptions()
        if pip.position != d.position { parts.append("position=\(pip.position.rawValue)") }
        if pip.size != d.size { parts.append("size=\(pip.sizePercent)") }
        if pip.margin != d.margin { parts.append("margin=\(pip.margin)") }
        if pip.swapped { parts.append("swap") }
        if pip.borderWidth != d.borderWidth { parts.append("border=\(pip.borderWidth)") }
        if pip.borderColor != d.borderColor { parts.append("border-color=\(pip.borderColor)") }
        if pip.cornerRadius != d.cornerRadius { parts.append("radius=\(pip.cornerRadius)") }
        if pip.shadow { parts.append("shadow") }
        if let shown { parts.append("show=" + shown.map { String($0 + 1) }.joined(separator: "+")) }
        return kind.rawValue + ":" + parts.joined(separator: ",")
    }

    private static func parseShown(_ text: String) throws(LayoutError) -> [Int] {
        let numbers = text.split(separator: "+", omittingEmptySubsequences: false).map { Int(String($0).trimmingSpaces) }
        guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? 0) >= 1 }) else {
            throw LayoutError("layout option 'show' takes camera numbers from 1 joined by +, such as show=2 or show=1+3, not '\(text)'")
        }
        return numbers.map { $0! - 1 }
    }

    /// Another kind with the same picture-in-picture options (`l`): fit and anchor go
    /// back to the new kind's own, so that each name shows its own picture.
    public func switching(to kind: LayoutKind) -> LayoutSpec {
        LayoutSpec(kind: kind, pip: pip)
    }

    /// What a main picture gets (every picture but a picture-in-picture window and, in
    /// dominance, the small ones): the spec's choice, else the kind's.
    public var mainFit: LayoutFit { fit ?? kind.defaultFit }
    public var mainAnchor: CropAnchor { anchor ?? kind.defaultAnchor }
}

extension LayoutKind {
    /// Fill where the name promises a frame without bars (picture-in-picture, the splits,
    /// the large picture of dominance); fit where it promises each whole picture (equal,
    /// grid, and dominance's small pictures, which `LayoutGeometry` fits on its own).
    public var defaultFit: LayoutFit {
        switch self {
        case .pip, .splitVertical, .splitHorizontal, .dominance: .fill
        case .equal, .grid: .fit
        }
    }

    /// A band of a stacked split is half as tall as a camera's picture, so a centred crop
    /// would cut through heads; the top keeps them (docs/LAYOUTS.md).
    public var defaultAnchor: CropAnchor {
        self == .splitVertical ? .top : .center
    }
}
