/// The looks offered for the combined output. Raw values are the command-line names.
///
/// Each look is a tone curve on luma plus a 2x2 matrix and offset on chroma, so it is
/// applied in YUV without converting to RGB. At full intensity:
public enum FilterKind: String, CaseIterable, Sendable {
    /// The picture unchanged.
    case none
    /// Punchier: a gentle S-curve (mid-tone contrast +15%) and saturation ×1.4.
    case vivid
    /// Hard and moody: a strong S-curve (mid-tone contrast +40%), shadows pushed down,
    /// saturation ×0.8.
    case dramatic
    /// Colder light: chroma shifted toward blue (Cb +12, Cr −8), tones unchanged.
    case cool
    /// Warmer light: chroma shifted toward orange (Cb −12, Cr +10), tones unchanged.
    case warm
    /// Monochrome: chroma removed, a slight S-curve so grey does not look flat.
    case blackAndWhite = "bw"
    /// Old photograph: monochrome, blacks lifted and highlights lowered (faded print),
    /// toned brown (Cb −15, Cr +13).
    case sepia
    /// Film grade: lifted blacks, soft highlight roll-off, mid-tone contrast +20%,
    /// saturation ×0.9, hues turned 8° from red toward yellow (reds go orange, greens go
    /// teal) and a faint teal cast.
    case cinematic

    /// Parses a command-line name; "black-and-white" is accepted for `bw`.
    public static func parse(_ text: String) throws(FilterError) -> FilterKind {
        let lowered = text.lowercased()
        if lowered == "black-and-white" || lowered == "blackandwhite" { return .blackAndWhite }
        guard let kind = FilterKind(rawValue: lowered) else {
            throw FilterError("unknown filter '\(text)'; expected one of: "
                + allCases.map(\.rawValue).joined(separator: ", "))
        }
        return kind
    }
}

/// What a filter setting got wrong, in words a user can act on.
public struct FilterError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
