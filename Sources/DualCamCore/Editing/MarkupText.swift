/// Text made safe for XML attributes and elements, and relative paths made into URLs:
/// file names come from session folders, so nothing in them may break the markup.
enum MarkupText {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // Control characters are not allowed in XML 1.0 at all.
                if c.value < 0x20 && c != "\t" && c != "\n" && c != "\r" { continue }
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A path as a URL: `file://` + the percent-encoded path when absolute, the
    /// percent-encoded path alone (a relative reference) otherwise.
    static func url(_ path: String) -> String {
        var out = path.hasPrefix("/") ? "file://" : ""
        for byte in path.utf8 {
            let safe = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-._~/".utf8.contains(byte)
            if safe { out.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// JSON string literal.
    static func json(_ text: String) -> String {
        var out = "\""
        for c in text.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 {
                    let hex = Array("0123456789abcdef".utf8)
                    out += "\\u00" + String(decoding: [hex[Int(c.value >> 4)], hex[Int(c.value & 15)]], as: UTF8.self)
                } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }
}
