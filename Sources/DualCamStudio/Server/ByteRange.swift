/// An HTTP `Range: bytes=…` header (RFC 9110 §14.1.2) read for one range: what a browser's
/// video player asks for when it seeks. Several ranges at once are answered with the
/// first (players never ask for more).
enum ByteRange {
    /// The inclusive byte range asked of a file of `size` bytes; nil when it is not a
    /// bytes range or lies outside the file (416).
    static func parse(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let first = header.dropFirst(6).split(separator: ",").first.map { $0.trimmingCharacters(in: " ") } ?? ""
        guard let dash = first.firstIndex(of: "-") else { return nil }
        let from = first[..<dash], to = first[first.index(after: dash)...]
        if from.isEmpty {
            // The last n bytes.
            guard let n = Int(to), n > 0 else { return nil }
            return max(size - n, 0)...(size - 1)
        }
        guard let start = Int(from), start >= 0, start < size else { return nil }
        if to.isEmpty { return start...(size - 1) }
        guard let end = Int(to), end >= start else { return nil }
        return start...min(end, size - 1)
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(self.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
