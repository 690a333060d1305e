/// The rules a stored layout text was written under. Names changed their pictures once
/// (issue 21: `equal`, `grid` and `dominance` had become copies of the splits or a slit,
/// and `split-vertical` cut through heads), so a session recorded before that must
/// still replay as it was recorded: its texts are read under the first edition.
public enum LayoutEdition: Int, Sendable, Hashable {
    /// Every picture filled and centred; `grid` without gaps.
    case original = 1
    /// Fit, anchor and a distinct picture per name.
    case distinctNames = 2

    public static let current = LayoutEdition.distinctNames

    /// The edition a file records: none is a file from before editions were written
    /// down; one this build does not know is newer, and read as the latest it knows.
    public init(stored: Int?) {
        guard let stored else { self = .original; return }
        self = LayoutEdition(rawValue: stored) ?? .current
    }
}

extension LayoutSpec {
    /// Parses a text written by a program under `edition` (a manifest, session.json),
    /// into the spec that draws the picture it described then. `init(parsing:)` is for
    /// what a person types: it always reads the current edition.
    public init(parsing text: String, edition: LayoutEdition) throws(LayoutError) {
        self = try LayoutSpec(parsing: text)
        if edition == .original { self = asOriginallyDrawn }
    }

    /// The first edition's picture in today's terms. Its texts never named a fit or an
    /// anchor, so only the kind's defaults need pinning.
    private var asOriginallyDrawn: LayoutSpec {
        var spec = self
        switch kind {
        case .pip, .splitHorizontal:
            break
        case .splitVertical:
            spec.anchor = .center
        case .equal, .dominance:
            spec.fit = .fill
        case .grid:
            spec.fit = .fill
            // The first grid ignored margin and drew its cells edge to edge.
            spec.pip.margin = .pixels(0)
        }
        return spec
    }
}
