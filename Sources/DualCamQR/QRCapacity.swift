/// Symbol capacities: the block structure table of ISO/IEC 18004 (Table 9) and the
/// module counts it derives from.
enum QRCapacity {
    static let maxVersion = 40

    static func size(version: Int) -> Int { 17 + 4 * version }

    /// Byte mode's character count field widens at version 10.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    static func smallestVersion(byteCount: Int, level: QRCode.ErrorCorrection) -> Int? {
        (1...maxVersion).first { byteCapacity(version: $0, level: level) >= byteCount }
    }

    static func byteCapacity(version: Int, level: QRCode.ErrorCorrection) -> Int {
        let modeBits = 4
        return (dataCodewords(version: version, level: level) * 8 - modeBits - countBits(version: version)) / 8
    }

    static func dataCodewords(version: Int, level: QRCode.ErrorCorrection) -> Int {
        totalCodewords(version: version)
            - blockCount(version: version, level: level) * ecCodewordsPerBlock(version: version, level: level)
    }

    /// Whole codewords that fit in the modules left after the function patterns; the
    /// leftover 0 to 7 modules are remainder bits.
    static func totalCodewords(version: Int) -> Int { dataModules(version: version) / 8 }

    /// Counted from the pattern geometry rather than tabulated, so the table below only
    /// has to carry what can't be derived. A test checks it against the drawn matrix.
    static func dataModules(version: Int) -> Int {
        let size = size(version: version)
        let findersWithSeparators = 3 * 64
        let formatAndDarkModule = 2 * 15 + 1
        let timing = 2 * (size - 16)
        var alignment = 0
        if version >= 2 {
            let n = version / 7 + 2
            // n*n centres less the three under finders; those on row or column 6
            // each reuse 5 timing modules.
            alignment = 25 * (n * n - 3) - 2 * 5 * (n - 2)
        }
        let versionInfo = version >= 7 ? 2 * 18 : 0
        return size * size - findersWithSeparators - formatAndDarkModule - timing - alignment - versionInfo
    }

    static func blockCount(version: Int, level: QRCode.ErrorCorrection) -> Int {
        blocks[level.tableRow][version - 1]
    }

    static func ecCodewordsPerBlock(version: Int, level: QRCode.ErrorCorrection) -> Int {
        ecPerBlock[level.tableRow][version - 1]
    }

    // Rows L, M, Q, H; columns versions 1 to 40.
    private static let ecPerBlock: [[Int]] = [
        [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
         28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
         26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
         28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
         30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    private static let blocks: [[Int]] = [
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
         8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
         17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
         23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
         25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]
}

extension QRCode.ErrorCorrection {
    fileprivate var tableRow: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }
}
