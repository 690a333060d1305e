/// A QR Code symbol (ISO/IEC 18004, Model 2) carrying bytes in byte mode.
///
/// Only byte mode exists: the studio encodes a URL whose token is lowercase hex,
/// which alphanumeric mode cannot hold, and the encoder stays small without mode mixing.
public struct QRCode: Sendable {
    public enum ErrorCorrection: Sendable, CaseIterable {
        /// Recovers about 7% of the codewords.
        case low
        /// Recovers about 15%: the usual trade-off for a code shown on a screen.
        case medium
        /// Recovers about 25%.
        case quartile
        /// Recovers about 30%.
        case high
    }

    /// Modules per side, without the quiet zone.
    public let size: Int
    /// 1 to 40: the smallest that holds the data at `level`.
    public let version: Int
    public let level: ErrorCorrection
    /// 0 to 7: the data mask with the lowest penalty.
    public let mask: Int
    /// Row-major, `true` is dark.
    let modules: [Bool]

    public init(_ bytes: [UInt8], level: ErrorCorrection = .medium) throws {
        try self.init(bytes, level: level, forcedMask: nil)
    }

    public init(_ text: String, level: ErrorCorrection = .medium) throws {
        try self.init(Array(text.utf8), level: level, forcedMask: nil)
    }

    /// `forcedMask` skips the penalty evaluation, so tests can compare the rest of the
    /// encoding with a reference encoder even where the two would choose different masks.
    init(_ bytes: [UInt8], level: ErrorCorrection, forcedMask: Int?) throws {
        guard let version = QRCapacity.smallestVersion(byteCount: bytes.count, level: level) else {
            throw QRCodeError.dataTooLong(
                byteCount: bytes.count, maximum: QRCapacity.byteCapacity(version: QRCapacity.maxVersion, level: level),
                level: level)
        }
        let data = QRCodewords.dataCodewords(bytes, version: version, level: level)
        let codewords = QRCodewords.withErrorCorrection(data, version: version, level: level)

        var matrix = QRMatrix(version: version)
        matrix.placeData(codewords)
        let mask = forcedMask ?? matrix.lowestPenaltyMask()
        matrix.applyMask(mask)
        matrix.drawFormatAndVersion(level: level, mask: mask)

        self.size = matrix.size
        self.version = version
        self.level = level
        self.mask = mask
        self.modules = matrix.modules
    }

    /// Coordinates outside the symbol read as light, so a renderer can walk the quiet
    /// zone with the same call.
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}

public enum QRCodeError: Error, Equatable, CustomStringConvertible {
    case dataTooLong(byteCount: Int, maximum: Int, level: QRCode.ErrorCorrection)

    public var description: String {
        switch self {
        case let .dataTooLong(count, maximum, level):
            return "too much data for a QR code: \(count) bytes, at most \(maximum) fit"
                + " at error correction level \(level.letter)"
        }
    }
}

extension QRCode.ErrorCorrection {
    public var letter: String {
        switch self {
        case .low: "L"
        case .medium: "M"
        case .quartile: "Q"
        case .high: "H"
        }
    }

    /// The two bits in the format information; the spec's order is not L, M, Q, H.
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }
}
