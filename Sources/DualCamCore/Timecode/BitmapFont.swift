/// A 5x7 bitmap font of our own, enough for what a node name may hold (`A–Z`, digits,
/// `-`, `_`, `.`; lower case is drawn as upper case): a label on the test pattern must
/// come out the same on every machine, with no font library or file behind it.
public enum BitmapFont {
    public static let glyphWidth = 5
    public static let glyphHeight = 7
    /// Glyph plus one column of space.
    public static let advance = glyphWidth + 1

    /// Rows top to bottom; bit 4 is the leftmost column.
    public typealias Glyph = [UInt8]

    /// What a character with no glyph is drawn as: an empty box, which no letter or
    /// digit looks like, so a wrong character shows as wrong rather than as another one.
    public static let unknown = glyph([
        "#####",
        "#...#",
        "#...#",
        "#...#",
        "#...#",
        "#...#",
        "#####",
    ])

    public static func glyph(for character: Character) -> Glyph {
        let upper = character.uppercased()
        guard upper.count == 1, let c = upper.first else { return unknown }
        return glyphs[c] ?? unknown
    }

    /// A one-bit mask of `text` at 1 font pixel per pixel, row-major, `width` =
    /// `advance * count - 1` (no space after the last glyph), `height` = 7.
    public static func mask(_ text: String) -> (width: Int, height: Int, bits: [Bool]) {
        let characters = Array(text)
        let width = width(characters: characters.count)
        var bits = [Bool](repeating: false, count: width * glyphHeight)
        for (i, c) in characters.enumerated() {
            let rows = glyph(for: c)
            for (y, row) in rows.enumerated() {
                for x in 0..<glyphWidth where row & (0x10 >> UInt8(x)) != 0 {
                    bits[y * width + i * advance + x] = true
                }
            }
        }
        return (width, glyphHeight, bits)
    }

    /// Font pixels a `count`-character line is wide.
    public static func width(characters count: Int) -> Int { max(advance * count - 1, 0) }

    private static func glyph(_ rows: [String]) -> Glyph {
        precondition(rows.count == glyphHeight && rows.allSatisfy { $0.count == glyphWidth }, "glyph must be 5x7")
        return rows.map { row in row.reduce(UInt8(0)) { $0 << 1 | ($1 == "#" ? 1 : 0) } }
    }

    // Drawn as text so that a glyph can be checked, and fixed, by looking at it.
    private static let glyphs: [Character: Glyph] = [
        "A": glyph([".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]),
        "B": glyph(["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."]),
        "C": glyph([".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."]),
        "D": glyph(["####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."]),
        "E": glyph(["#####", "#....", "#....", "####.", "#....", "#....", "#####"]),
        "F": glyph(["#####", "#....", "#....", "####.", "#....", "#....", "#...."]),
        "G": glyph([".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"]),
        "H": glyph(["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]),
        "I": glyph([".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."]),
        "J": glyph(["..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."]),
        "K": glyph(["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"]),
        "L": glyph(["#....", "#....", "#....", "#....", "#....", "#....", "#####"]),
        "M": glyph(["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"]),
        "N": glyph(["#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"]),
        "O": glyph([".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."]),
        "P": glyph(["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."]),
        "Q": glyph([".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"]),
        "R": glyph(["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"]),
        "S": glyph([".####", "#....", "#....", ".###.", "....#", "....#", "####."]),
        "T": glyph(["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."]),
        "U": glyph(["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."]),
        "V": glyph(["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."]),
        "W": glyph(["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."]),
        "X": glyph(["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"]),
        "Y": glyph(["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."]),
        "Z": glyph(["#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"]),
        "0": glyph([".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."]),
        "1": glyph(["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."]),
        "2": glyph([".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"]),
        "3": glyph(["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."]),
        "4": glyph(["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."]),
        "5": glyph(["#####", "#....", "####.", "....#", "....#", "#...#", ".###."]),
        "6": glyph(["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."]),
        "7": glyph(["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."]),
        "8": glyph([".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."]),
        "9": glyph([".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."]),
        "-": glyph([".....", ".....", ".....", "#####", ".....", ".....", "....."]),
        "_": glyph([".....", ".....", ".....", ".....", ".....", ".....", "#####"]),
        ".": glyph([".....", ".....", ".....", ".....", ".....", ".##..", ".##.."]),
        " ": glyph([".....", ".....", ".....", ".....", ".....", ".....", "....."]),
    ]
}
