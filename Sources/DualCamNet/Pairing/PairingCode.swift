import Foundation

/// The six-digit secret an agent shows while its pairing window is open, and which the
/// person pairing types at the coordinator. It never crosses the wire: CPace proves that
/// both sides hold it.
public enum PairingCode {
    /// A fresh code, uniform over 000 000–999 999, shown as two groups of three.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return formatted(UInt32.random(in: 0..<1_000_000, using: &generator))
    }

    static func formatted(_ value: UInt32) -> String {
        let digits = String(format: "%06u", value)
        return String(digits.prefix(3)) + " " + String(digits.suffix(3))
    }

    /// Accepts what a person types: six digits with any spaces or dashes between them.
    public static func normalized(_ typed: String) -> String? {
        let trimmed = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = trimmed.filter { $0.isASCII && $0.isNumber }
        guard digits.count == 6, trimmed.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == " " || $0 == "-" }) else { return nil }
        return String(digits.prefix(3)) + " " + String(digits.suffix(3))
    }

    /// The password CPace uses (its PRS): the digits alone, as ASCII, so that "042917"
    /// and "042 917" agree.
    static func secret(_ code: String) -> [UInt8] { Array(code.filter { $0.isASCII && $0.isNumber }.utf8) }
}

public struct PairingError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
