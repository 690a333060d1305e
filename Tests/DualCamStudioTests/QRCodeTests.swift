import XCTest

@testable import DualCamQR

final class QRCodeTests: XCTestCase {
    private func assertMatches(_ golden: QRGolden, forcingMask: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        let code = try QRCode(Array(golden.text.utf8), level: golden.level, forcedMask: forcingMask ? golden.mask : nil)
        XCTAssertEqual(code.version, golden.version, "version", file: file, line: line)
        XCTAssertEqual(code.mask, golden.mask, "mask", file: file, line: line)
        let expected = golden.modules
        XCTAssertEqual(code.size, expected.count, "size", file: file, line: line)
        guard code.size == expected.count else { return }
        var differing: [String] = []
        for y in 0..<code.size {
            for x in 0..<code.size where code.isDark(x: x, y: y) != expected[y][x] {
                differing.append("(\(x),\(y))")
            }
        }
        XCTAssertTrue(differing.isEmpty, "modules differ at \(differing.prefix(20).joined(separator: " "))", file: file, line: line)
    }

    // MARK: Whole symbols against the reference encoder, mask chosen by each side.

    func testShortURLMatchesReference() throws { try assertMatches(QRGoldens.short) }
    func testFortyByteURLMatchesReference() throws { try assertMatches(QRGoldens.url40) }
    /// Version 7: the first with version information.
    func testHundredTwentyByteURLMatchesReference() throws { try assertMatches(QRGoldens.url120) }
    /// Version 10: the byte count field is 16 bits, and there are several blocks of two lengths.
    func testTwoHundredByteURLMatchesReference() throws { try assertMatches(QRGoldens.url200) }
    func testLevelLMatchesReference() throws { try assertMatches(QRGoldens.url40L) }
    func testLevelQMatchesReference() throws { try assertMatches(QRGoldens.url40Q) }
    func testLevelHMatchesReference() throws { try assertMatches(QRGoldens.url40H) }

    /// A mask other than the chosen one, so the masks and format bits are checked apart
    /// from the penalty choice.
    func testForcedMaskMatchesReference() throws {
        try assertMatches(QRGoldens.url40Mask3, forcingMask: true)
    }

    // MARK: Mask choice

    /// Penalties of the 40-byte URL at M for masks 0...7, computed by the reference encoder
    /// with format and version areas light: (runs, 2×2 blocks, finder-like, balance).
    func testPenaltiesMatchReferenceForEveryMask() {
        let reference: [(Int, Int, Int, Int)] = [
            (295, 378, 80, 0), (319, 345, 120, 0), (297, 288, 200, 0), (364, 399, 200, 0),
            (291, 297, 400, 0), (351, 369, 320, 0), (291, 324, 280, 0), (320, 375, 120, 0),
        ]
        let bytes = Array(QRGoldens.url40.text.utf8)
        let data = QRCodewords.dataCodewords(bytes, version: 3, level: .medium)
        var matrix = QRMatrix(version: 3)
        matrix.placeData(QRCodewords.withErrorCorrection(data, version: 3, level: .medium))
        for mask in QRMask.all {
            var candidate = matrix
            candidate.applyMask(mask)
            let (runs, blocks, finderLike, balance) = reference[mask]
            XCTAssertEqual(
                QRPenalty(modules: candidate.modules, size: candidate.size),
                QRPenalty(runs: runs, blocks: blocks, finderLike: finderLike, balance: balance), "mask \(mask)")
        }
        XCTAssertEqual(matrix.lowestPenaltyMask(), 0)
    }

    /// Masks 0 and 7 score 713 here, as do masks 2 and 3 (857) in the second; the
    /// reference encoder keeps the lower number, and so must we.
    func testTiesGoToTheLowerMask() throws {
        XCTAssertEqual(try QRCode("http://192.168.1.111:8080/?token=fc3ce4d8", level: .medium).mask, 0)
        XCTAssertEqual(try QRCode("http://192.168.1.37:8080/?token=37196e46", level: .quartile).mask, 2)
    }

    func testRunPenalty() {
        XCTAssertEqual(QRPenalty.runPenalty([true, true, true, true]), 0)
        XCTAssertEqual(QRPenalty.runPenalty([false, false, false, false, false]), 3)
        XCTAssertEqual(QRPenalty.runPenalty([true, false, false, false, false, false, false, false, true]), 5)
        XCTAssertEqual(QRPenalty.runPenalty(Array(repeating: true, count: 5) + Array(repeating: false, count: 6)), 3 + 4)
    }

    func testFinderLikePenalty() {
        let core: [Bool] = [true, false, true, true, true, false, true]
        let light = [Bool](repeating: false, count: 4)
        XCTAssertEqual(QRPenalty.finderLikePenalty(light + core), 40)
        XCTAssertEqual(QRPenalty.finderLikePenalty(core + light), 40)
        XCTAssertEqual(QRPenalty.finderLikePenalty(light + core + light), 80, "light on both sides counts twice")
        XCTAssertEqual(QRPenalty.finderLikePenalty(core), 0, "the margin must lie inside the symbol")
        XCTAssertEqual(QRPenalty.finderLikePenalty([false, false, true, false] + core + [true, false, true]), 0)
    }

    func testBlockAndBalancePenalty() {
        // 3×3 all dark: four 2×2 blocks; 100% dark is ten 5% steps from half.
        let dark = QRPenalty(modules: Array(repeating: true, count: 9), size: 3)
        XCTAssertEqual(dark.blocks, 12)
        XCTAssertEqual(dark.balance, 100)
        // A 2×2 checkerboard: no blocks, exactly half dark.
        let checker = QRPenalty(modules: [true, false, false, true], size: 2)
        XCTAssertEqual(checker.blocks, 0)
        XCTAssertEqual(checker.balance, 0)
        // 11 of 20 dark is 55%: one full step.
        let modules = Array(repeating: true, count: 11) + Array(repeating: false, count: 9)
        XCTAssertEqual(QRPenalty(modules: modules + modules + modules + modules + modules, size: 10).balance, 10)
    }

    // MARK: Building blocks against values from the spec

    /// ISO/IEC 18004 Annex I: "01234567" at 1-M.
    func testReedSolomonMatchesSpecExample() {
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        XCTAssertEqual(
            QRReedSolomon.errorCorrection(for: data, degree: 10),
            [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    func testGaloisField() {
        XCTAssertEqual(QRGaloisField.exponents[8], 0x1D)
        XCTAssertEqual(QRGaloisField.exponents[255], 1)
        for a in 1...255 {
            let inverse = QRGaloisField.exponents[255 - QRGaloisField.logarithms[a]]
            XCTAssertEqual(QRGaloisField.multiply(UInt8(a), inverse), 1)
        }
    }

    func testDataCodewordsPadWithAlternatingBytes() {
        // 4 + 8 + 8 + 4 bits end on a byte boundary, so no zero byte comes before the pads.
        XCTAssertEqual(
            QRCodewords.dataCodewords([0x41], version: 1, level: .high),
            [0x40, 0x14, 0x10, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
    }

    func testFormatAndVersionBits() {
        XCTAssertEqual(QRMatrix.formatBits(level: .low, mask: 0), 0x77C4)
        XCTAssertEqual(QRMatrix.formatBits(level: .medium, mask: 0), 0x5412)
        XCTAssertEqual(QRMatrix.formatBits(level: .quartile, mask: 5), 0x2183)
        XCTAssertEqual(QRMatrix.formatBits(level: .high, mask: 7), 0x083B)
        XCTAssertEqual(QRMatrix.versionBits(version: 7), 0x07C94)
        XCTAssertEqual(QRMatrix.versionBits(version: 8), 0x085BC)
        XCTAssertEqual(QRMatrix.versionBits(version: 10), 0x0A4D3)
        XCTAssertEqual(QRMatrix.versionBits(version: 40), 0x28C69)
    }

    func testAlignmentCentres() {
        XCTAssertEqual(QRMatrix.alignmentCentres(version: 1), [])
        XCTAssertEqual(QRMatrix.alignmentCentres(version: 2), [6, 18])
        XCTAssertEqual(QRMatrix.alignmentCentres(version: 7), [6, 22, 38])
        XCTAssertEqual(QRMatrix.alignmentCentres(version: 16), [6, 26, 50, 74])
        XCTAssertEqual(QRMatrix.alignmentCentres(version: 32), [6, 34, 60, 86, 112, 138])
        XCTAssertEqual(QRMatrix.alignmentCentres(version: 36), [6, 24, 50, 76, 102, 128, 154])
        XCTAssertEqual(QRMatrix.alignmentCentres(version: 40), [6, 30, 58, 86, 114, 142, 170])
    }

    /// The capacity formula and the drawn function patterns must agree, or data would
    /// overrun or fall short of the symbol.
    func testCapacityFormulaMatchesDrawnMatrix() {
        for version in 1...QRCapacity.maxVersion {
            let matrix = QRMatrix(version: version)
            XCTAssertEqual(
                matrix.isFunction.filter { !$0 }.count, QRCapacity.dataModules(version: version), "version \(version)")
        }
    }

    // MARK: Version choice and limits

    /// Byte capacities from the spec's Table 7.
    func testSmallestVersionIsChosen() throws {
        let cases: [(Int, QRCode.ErrorCorrection, Int)] = [
            (14, .medium, 1), (15, .medium, 2), (122, .medium, 7), (123, .medium, 8),
            (180, .medium, 9), (181, .medium, 10), (17, .low, 1), (18, .low, 2), (7, .high, 1), (8, .high, 2),
            (2331, .medium, 40), (2953, .low, 40), (1663, .quartile, 40), (1273, .high, 40),
        ]
        for (count, level, version) in cases {
            let code = try QRCode([UInt8](repeating: 0x61, count: count), level: level)
            XCTAssertEqual(code.version, version, "\(count) bytes at \(level.letter)")
            XCTAssertEqual(code.size, 17 + 4 * version)
        }
    }

    func testTooLongThrows() {
        XCTAssertThrowsError(try QRCode([UInt8](repeating: 0x61, count: 2332), level: .medium)) { error in
            XCTAssertEqual(error as? QRCodeError, .dataTooLong(byteCount: 2332, maximum: 2331, level: .medium))
            XCTAssertTrue("\(error)".contains("2332 bytes"))
        }
        XCTAssertThrowsError(try QRCode([UInt8](repeating: 0x61, count: 1274), level: .high))
    }

    func testOutsideTheSymbolIsLight() throws {
        let code = try QRCode("x")
        XCTAssertTrue(code.isDark(x: 0, y: 0))
        XCTAssertFalse(code.isDark(x: -1, y: 0))
        XCTAssertFalse(code.isDark(x: 0, y: code.size))
    }
}
