import XCTest

@testable import DualCamQR

final class QRTerminalTests: XCTestCase {
    /// Reads the half-block text back into module rows (quiet zone included).
    private func modules(fromRendered text: String, inkIsDark: Bool) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var upper: [Bool] = []
            var lower: [Bool] = []
            for glyph in line {
                let (top, bottom): (Bool, Bool)
                switch glyph {
                case "█": (top, bottom) = (true, true)
                case "▀": (top, bottom) = (true, false)
                case "▄": (top, bottom) = (false, true)
                case " ": (top, bottom) = (false, false)
                default: continue
                }
                upper.append(top == inkIsDark)
                lower.append(bottom == inkIsDark)
            }
            rows.append(upper)
            rows.append(lower)
        }
        return rows
    }

    private func stripANSI(_ text: String) -> String {
        var result = ""
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true; continue }
            if inEscape {
                if character.isLetter { inEscape = false }
                continue
            }
            result.append(character)
        }
        return result
    }

    private func assertRoundTrip(_ code: QRCode, style: QRTerminal.Style, file: StaticString = #filePath, line: UInt = #line) {
        let text = QRTerminal.render(code, style: style)
        let plain = style == .ansi ? stripANSI(text) : text
        let rows = modules(fromRendered: plain, inkIsDark: style == .plainForLightBackground)
        let span = code.size + 2 * QRTerminal.quietZone
        XCTAssertEqual(plain.split(separator: "\n").count, (span + 1) / 2, file: file, line: line)
        XCTAssertEqual(rows.count, span + span % 2, file: file, line: line)
        for (y, row) in rows.enumerated() {
            XCTAssertEqual(row.count, span, "row \(y)", file: file, line: line)
            for (x, dark) in row.enumerated() {
                let expected = code.isDark(x: x - QRTerminal.quietZone, y: y - QRTerminal.quietZone)
                if dark != expected {
                    XCTFail("module (\(x),\(y)) drawn \(dark ? "dark" : "light")", file: file, line: line)
                    return
                }
            }
        }
    }

    func testEveryStyleDrawsTheModulesWithAQuietZone() throws {
        let code = try QRCode("http://192.168.1.20:8080/?token=3f9a0c1d")
        assertRoundTrip(code, style: .ansi)
        assertRoundTrip(code, style: .plainForDarkBackground)
        assertRoundTrip(code, style: .plainForLightBackground)
    }

    func testANSILinesSetAndResetTheirColours() throws {
        let code = try QRCode("x")
        let lines = QRTerminal.render(code).split(separator: "\n")
        for line in lines {
            XCTAssertTrue(line.hasPrefix("\u{1B}[40;37;97m"))
            XCTAssertTrue(line.hasSuffix("\u{1B}[0m"))
        }
        // Light is drawn as ink in this style, so the top quiet-zone line is all full blocks.
        XCTAssertEqual(stripANSI(String(lines[0])), String(repeating: "█", count: code.size + 8))
        XCTAssertFalse(QRTerminal.render(code, style: .plainForDarkBackground).contains("\u{1B}"))
    }
}
