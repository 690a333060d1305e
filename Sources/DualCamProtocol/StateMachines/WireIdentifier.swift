/// The one pattern for every identifier that crosses the wire (session IDs, node names,
/// encoder and preset names) and for names a user gives that end up on the wire. Such a
/// name becomes a file or folder name on the other side, or a line in its journal, so it
/// is kept to a portable, path-safe, printable alphabet: 1–64 bytes of [A-Za-z0-9._-],
/// not starting with "." (no "..", no hidden files, no separators, no control bytes).
public enum WireIdentifier {
    public static let maxBytes = 64

    /// What is wrong with `text` as a `what` (e.g. "session_id"), or nil when it is fine.
    public static func problem(_ text: String, what: String) -> String? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= maxBytes else {
            return "\(what) must be 1–\(maxBytes) bytes, got \(bytes.count)"
        }
        guard bytes.first != UInt8(ascii: ".") else { return "\(what) must not start with '.'" }
        guard bytes.allSatisfy(isAllowed) else {
            return "\(what) may only contain A–Z, a–z, 0–9, '.', '_' and '-'"
        }
        return nil
    }

    public static func isValid(_ text: String) -> Bool { problem(text, what: "name") == nil }

    static func check(_ text: String, what: String) throws(ProtocolError) {
        if let problem = problem(text, what: what) { throw ProtocolError(.badMessage, problem) }
    }

    /// A peer's free text (software name, error message) made safe to log or show: control
    /// bytes (newlines that would forge journal lines, terminal escapes) become "?", and
    /// the length is capped.
    public static func printable(_ text: String, maxCharacters: Int = 200) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(maxCharacters) {
            let control = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.properties.generalCategory == .format
            out.unicodeScalars.append(control ? "?" : scalar)
        }
        return out
    }

    private static func isAllowed(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
            || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
            || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
    }
}
