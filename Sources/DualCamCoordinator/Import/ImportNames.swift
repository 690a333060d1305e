import Foundation

/// An import's name: given with `--name`, or the file's own name; letters, digits, `-`
/// and `_` (any script), so that it makes a file name and a track name anywhere.
enum ImportNames {
    static func choose(for files: [String], given: String?, taken: [String]) throws -> [String] {
        var used = Set(taken)
        var out: [String] = []
        for (i, file) in files.enumerated() {
            let base: String
            if let given {
                let cleaned = clean(given)
                guard !cleaned.isEmpty, cleaned == given else {
                    throw CoordinatorError("--name '\(given)' cannot name an import: use letters, digits, - and _ (e.g. \(cleaned.isEmpty ? "zoom-h5" : cleaned))")
                }
                base = files.count > 1 ? "\(given)-\(i + 1)" : given
            } else {
                let stem = clean(((file as NSString).lastPathComponent as NSString).deletingPathExtension)
                base = stem.isEmpty ? "import" : stem
            }
            if used.contains(base) {
                if given != nil {
                    throw CoordinatorError("the session already has an import named '\(base)': choose another --name, or remove it first with --remove \(base)")
                }
                var n = 2
                while used.contains("\(base)-\(n)") { n += 1 }
                out.append("\(base)-\(n)")
            } else {
                out.append(base)
            }
            used.insert(out.last!)
        }
        return out
    }

    static func clean(_ text: String) -> String {
        var out = ""
        for ch in text {
            if ch.isLetter || ch.isNumber || ch == "-" || ch == "_" {
                out.append(ch)
            } else if !out.isEmpty, out.last != "-" {
                out.append("-")
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return String(out.prefix(60))
    }
}
