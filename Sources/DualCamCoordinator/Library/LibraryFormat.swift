import Foundation

/// How the library commands write sizes, durations and dates.
enum LibraryFormat {
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count), unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: value < 10 ? "%.1f " : "%.0f ", value) + units[unit]
    }

    static func duration(_ seconds: Double?) -> String {
        // Checked manifests hold no such value; a caller with another source must not trap.
        guard let seconds, seconds.isFinite, abs(seconds) < 1e12 else { return "–" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }

    /// Local time, as the user reads a clock.
    static func date(_ date: Date?) -> String {
        guard let date else { return "–" }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.string(from: date)
    }

    /// Text read from a session's files with its control characters shown as "?": a
    /// manifest's names and warnings are anyone's to write, and an escape sequence in
    /// one would otherwise drive the user's terminal.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    /// Columns padded to their widest cell; the last one is left ragged.
    static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        let widths = (0..<columns).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                c == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[c] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
