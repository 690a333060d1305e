/// Draws a QR code with Unicode half blocks, two module rows per text line, so the
/// symbol is about square in a terminal whose cells are twice as tall as they are wide.
public enum QRTerminal {
    public enum Style: Sendable {
        /// Sets its own colours, so it scans on a dark or light terminal theme alike.
        case ansi
        /// No escape codes (for logs and files), for a light-on-dark terminal.
        case plainForDarkBackground
        /// No escape codes, for a dark-on-light terminal.
        case plainForLightBackground
    }

    /// The spec's minimum light margin around the symbol; readers need it to find the finders.
    public static let quietZone = 4

    /// Lines joined by "\n", with no trailing newline.
    ///
    /// In `.ansi` the background is black and the glyphs are white: dark modules are
    /// the background showing through (spaces), light modules are ink. Setting both
    /// colours makes the terminal's theme irrelevant. Ink is light rather than dark
    /// because the gaps a terminal may leave between glyphs (line spacing, fonts whose
    /// blocks don't fill the cell) then show as thin dark lines inside light areas, and
    /// a camera facing a backlit screen lets light bleed into dark, swallowing such
    /// lines; the reverse choice would leave light cracks across dark modules and widen
    /// them. SGR 37 is the white every terminal knows, 97 a brighter one where supported.
    public static func render(_ code: QRCode, style: Style = .ansi) -> String {
        let inkIsLight = style != .plainForLightBackground
        let span = code.size + 2 * quietZone
        var lines: [String] = []
        // An odd row count leaves the last line's lower half beyond the quiet zone; it is
        // drawn light, which only widens the margin.
        for top in stride(from: -quietZone, to: span - quietZone, by: 2) {
            var line = style == .ansi ? "\u{1B}[40;37;97m" : ""
            for x in -quietZone..<(span - quietZone) {
                let bottom = top + 1
                let upperInk = isLight(code, x: x, y: top) == inkIsLight
                let lowerInk = isLight(code, x: x, y: bottom) == inkIsLight
                switch (upperInk, lowerInk) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            // Resetting before the newline keeps the background from filling the rest of
            // the line, or a whole new line if the terminal scrolls.
            if style == .ansi { line += "\u{1B}[0m" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private static func isLight(_ code: QRCode, x: Int, y: Int) -> Bool {
        !code.isDark(x: x, y: y)
    }
}
