import Crypto

/// A node's identity on the wire: the SHA-256 of its certificate (DER).
///
/// Shown to people as 56 characters in 8 groups of 7: the 32 bytes in base32 (52
/// characters) split into four runs of 13, each followed by a Luhn mod 32 check
/// character, so that a mistyped or misread ID is caught before it is pinned.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a device ID is 32 bytes")
        self.bytes = bytes
    }

    public init(certificateDER: [UInt8]) {
        self.bytes = Array(SHA256.hash(data: certificateDER))
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    public var description: String {
        let plain = DeviceID.base32(bytes)
        var withChecks: [Character] = []
        for run in 0..<4 {
            let chunk = Array(plain[plain.index(plain.startIndex, offsetBy: run * 13)..<plain.index(plain.startIndex, offsetBy: run * 13 + 13)])
            withChecks += chunk
            withChecks.append(DeviceID.luhnCheck(chunk))
        }
        var groups: [String] = []
        for g in 0..<8 { groups.append(String(withChecks[(g * 7)..<(g * 7 + 7)])) }
        return groups.joined(separator: "-")
    }

    /// A short form for log lines and tables (first group); never used for pinning.
    public var short: String { String(description.prefix(7)) }

    /// Parses the grouped form (dashes, spaces and case are ignored); nil when a check
    /// character does not match.
    public init?(parsing text: String) {
        let cleaned = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard cleaned.count == 56, cleaned.allSatisfy({ DeviceID.alphabet.contains($0) }) else { return nil }
        let chars = Array(cleaned)
        var plain: [Character] = []
        for run in 0..<4 {
            let chunk = Array(chars[(run * 14)..<(run * 14 + 13)])
            guard DeviceID.luhnCheck(chunk) == chars[run * 14 + 13] else { return nil }
            plain += chunk
        }
        guard let decoded = DeviceID.base32Decode(plain), decoded.count == 32 else { return nil }
        self.bytes = decoded
    }

    static func base32(_ data: [UInt8]) -> String {
        var out: [Character] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(out)
    }

    static func base32Decode(_ chars: [Character]) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in chars {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            buffer = (buffer << 5) | UInt32(v)
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }

    /// Luhn mod N over the base32 alphabet: catches every single-character error and
    /// most transpositions of neighbours.
    static func luhnCheck(_ chars: [Character]) -> Character {
        let n = alphabet.count
        var factor = 1
        var sum = 0
        for c in chars.reversed() {
            let codePoint = alphabet.firstIndex(of: c) ?? 0
            var addend = factor * codePoint
            factor = factor == 2 ? 1 : 2
            addend = addend / n + addend % n
            sum += addend
        }
        return alphabet[(n - sum % n) % n]
    }
}
