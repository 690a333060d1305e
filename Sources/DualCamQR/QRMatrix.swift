/// The module grid while a symbol is being built: function patterns first, then the
/// data in the zigzag order, then (after masking) format and version information.
struct QRMatrix {
    let version: Int
    let size: Int
    /// Row-major, `true` is dark.
    var modules: [Bool]
    /// Modules that belong to function patterns or reserved areas: data skips them and
    /// masks leave them alone.
    var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = QRCapacity.size(version: version)
        modules = [Bool](repeating: false, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
        drawTimingPatterns()
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] { drawFinder(centerX: x, centerY: y) }
        drawAlignmentPatterns()
        reserveFormatAndVersionAreas()
    }

    subscript(x: Int, y: Int) -> Bool {
        get { modules[y * size + x] }
        set { modules[y * size + x] = newValue }
    }

    private mutating func setFunction(x: Int, y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    /// Drawn first: the finders and alignment patterns overwrite the ends, and where an
    /// alignment pattern crosses a timing line the two agree (centres are at even indices).
    private mutating func drawTimingPatterns() {
        for i in 0..<size {
            setFunction(x: 6, y: i, dark: i % 2 == 0)
            setFunction(x: i, y: 6, dark: i % 2 == 0)
        }
    }

    /// The 7×7 finder plus its one-module light separator, clipped at the symbol's edge.
    private mutating func drawFinder(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx, y = centerY + dy
                guard x >= 0, y >= 0, x < size, y < size else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunction(x: x, y: y, dark: ring != 2 && ring != 4)
            }
        }
    }

    private mutating func drawAlignmentPatterns() {
        let centres = Self.alignmentCentres(version: version)
        guard let first = centres.first, let last = centres.last else { return }
        for cy in centres {
            for cx in centres {
                // The three corners that fall on finder patterns are left out.
                if (cx == first && cy == first) || (cx == first && cy == last) || (cx == last && cy == first) {
                    continue
                }
                for dy in -2...2 {
                    for dx in -2...2 {
                        setFunction(x: cx + dx, y: cy + dy, dark: max(abs(dx), abs(dy)) != 1)
                    }
                }
            }
        }
    }

    /// Row/column coordinates of alignment centres: from 6 to size − 7, evenly spaced by
    /// an even step, any slack going into the first gap. Version 32 is the one version
    /// where the spec's table uses a smaller step than that rule gives.
    static func alignmentCentres(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = QRCapacity.size(version: version) - 7
        let span = last - 6
        let intervals = count - 1
        let step = version == 32 ? 26 : 2 * ((span + 2 * intervals - 1) / (2 * intervals))
        var centres = [6]
        for k in stride(from: intervals - 1, through: 0, by: -1) {
            centres.append(last - k * step)
        }
        return centres
    }

    /// Reserved but left light until the mask is chosen: the spec's encoding procedure
    /// evaluates masks before format and version information are written.
    private mutating func reserveFormatAndVersionAreas() {
        for (x, y) in Self.formatPositions(size: size).flatMap({ [$0.0, $0.1] }) {
            setFunction(x: x, y: y, dark: false)
        }
        setFunction(x: 8, y: size - 8, dark: false)
        if version >= 7 {
            for (x, y) in Self.versionPositions(size: size).flatMap({ [$0.0, $0.1] }) {
                setFunction(x: x, y: y, dark: false)
            }
        }
    }

    /// Fills the data modules two columns at a time, right to left, snaking up then down;
    /// bits beyond the codewords (remainder bits) stay light.
    mutating func placeData(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var upward = true
        var right = size - 1
        while right > 0 {
            // The vertical timing pattern takes a whole column, so pairs shift left past it.
            if right == 6 { right = 5 }
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    if bitIndex < totalBits {
                        let byte = codewords[bitIndex / 8]
                        self[x, y] = (byte >> UInt8(7 - bitIndex % 8)) & 1 == 1
                    }
                    bitIndex += 1
                }
            }
            upward.toggle()
            right -= 2
        }
    }

    mutating func drawFormatAndVersion(level: QRCode.ErrorCorrection, mask: Int) {
        let format = Self.formatBits(level: level, mask: mask)
        for (bit, (first, second)) in Self.formatPositions(size: size).enumerated() {
            let dark = (format >> bit) & 1 == 1
            self[first.0, first.1] = dark
            self[second.0, second.1] = dark
        }
        self[8, size - 8] = true  // the dark module, always dark
        if version >= 7 {
            let info = Self.versionBits(version: version)
            for (bit, (first, second)) in Self.versionPositions(size: size).enumerated() {
                let dark = (info >> bit) & 1 == 1
                self[first.0, first.1] = dark
                self[second.0, second.1] = dark
            }
        }
    }

    /// For bit i (0 = least significant) of the format information, its module in the copy
    /// around the top-left finder and in the copy split between the other two finders.
    static func formatPositions(size: Int) -> [((Int, Int), (Int, Int))] {
        (0..<15).map { bit in
            let nearTopLeft: (Int, Int)
            switch bit {
            case 0...5: nearTopLeft = (8, bit)
            case 6: nearTopLeft = (8, 7)  // steps over the horizontal timing row
            case 7: nearTopLeft = (8, 8)
            case 8: nearTopLeft = (7, 8)
            default: nearTopLeft = (14 - bit, 8)  // bits 9...14 at x = 5...0, past the timing column
            }
            let split = bit < 8 ? (size - 1 - bit, 8) : (8, size - 15 + bit)
            return (nearTopLeft, split)
        }
    }

    /// For bit i of the version information, its module in the 6×3 block above the
    /// bottom-left finder and in the transposed 3×6 block left of the top-right finder.
    static func versionPositions(size: Int) -> [((Int, Int), (Int, Int))] {
        (0..<18).map { bit in
            let across = size - 11 + bit % 3, along = bit / 3
            return ((along, across), (across, along))
        }
    }

    /// 5 data bits protected by a BCH(15,5) code, then XORed with a fixed pattern so the
    /// format information can never be all light.
    static func formatBits(level: QRCode.ErrorCorrection, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        return (data << 10 | bchRemainder(data << 10, generator: 0b101_0011_0111)) ^ 0b101_0100_0001_0010
    }

    /// 6 version bits protected by a BCH(18,6) code.
    static func versionBits(version: Int) -> Int {
        version << 12 | bchRemainder(version << 12, generator: 0b1_1111_0010_0101)
    }

    private static func bchRemainder(_ value: Int, generator: Int) -> Int {
        let degree = Int.bitWidth - generator.leadingZeroBitCount - 1
        var rest = value
        while rest != 0, Int.bitWidth - rest.leadingZeroBitCount - 1 >= degree {
            rest ^= generator << (Int.bitWidth - rest.leadingZeroBitCount - 1 - degree)
        }
        return rest
    }
}
