/// The eight data masks and the penalty rules that pick one (ISO/IEC 18004, 7.8).
enum QRMask {
    static let all = 0..<8

    /// Whether mask `mask` inverts the data module at column x, row y.
    static func inverts(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (y + x) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (y + x) % 3 == 0
        case 4: (y / 2 + x / 3) % 2 == 0
        case 5: (y * x) % 2 + (y * x) % 3 == 0
        case 6: ((y * x) % 2 + (y * x) % 3) % 2 == 0
        case 7: ((y + x) % 2 + (y * x) % 3) % 2 == 0
        default: preconditionFailure("QR mask \(mask) does not exist")
        }
    }
}

/// Penalty features of a symbol; lower is easier for a reader to sample.
struct QRPenalty: Equatable {
    /// Runs of five or more same-coloured modules in a row or column.
    var runs = 0
    /// 2×2 blocks of one colour.
    var blocks = 0
    /// Patterns that a reader could mistake for a finder.
    var finderLike = 0
    /// Imbalance between dark and light.
    var balance = 0

    var total: Int { runs + blocks + finderLike + balance }

    init(runs: Int = 0, blocks: Int = 0, finderLike: Int = 0, balance: Int = 0) {
        self.runs = runs
        self.blocks = blocks
        self.finderLike = finderLike
        self.balance = balance
    }

    init(modules: [Bool], size: Int) {
        for i in 0..<size {
            let row = Self.scoreLine(modules, start: i * size, step: 1, count: size)
            let column = Self.scoreLine(modules, start: i, step: size, count: size)
            runs += row.runs + column.runs
            finderLike += row.finderLike + column.finderLike
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let colour = modules[y * size + x]
                if modules[y * size + x + 1] == colour, modules[(y + 1) * size + x] == colour,
                    modules[(y + 1) * size + x + 1] == colour
                {
                    blocks += 3
                }
            }
        }
        // 10 points for each full 5% step away from half dark.
        let total = size * size
        let dark = modules.reduce(0) { $0 + ($1 ? 1 : 0) }
        balance = 10 * (abs(20 * dark - 10 * total) / total)
    }

    static func runPenalty(_ line: [Bool]) -> Int {
        scoreLine(line, start: 0, step: 1, count: line.count).runs
    }

    static func finderLikePenalty(_ line: [Bool]) -> Int {
        scoreLine(line, start: 0, step: 1, count: line.count).finderLike
    }

    /// One pass over a row or column (`count` modules from `start`, `step` apart), so the
    /// eight candidate masks of a large symbol are scored without copying lines.
    ///
    /// Runs: 3 points for a run of 5 same-coloured modules, one more for each beyond.
    ///
    /// Finder-like: 40 points for each 11-module window reading four light modules and
    /// then dark-light-dark-dark-dark-light-dark (a finder's 1:1:3:1:1), or that pattern
    /// and then four light. The spec leaves open whether the margin beyond the edge
    /// counts and whether light on both sides counts twice; this is the common reading
    /// (windows wholly inside the symbol, each window counted), which keeps the chosen
    /// mask the same as other widely used encoders'.
    private static func scoreLine(_ modules: [Bool], start: Int, step: Int, count: Int) -> (runs: Int, finderLike: Int) {
        let lightThenPattern = 0b0000_1011101, patternThenLight = 0b1011101_0000
        let windowMask = (1 << 11) - 1
        var runs = 0, finderLike = 0
        var runLength = 0
        var previous = false
        var window = 0  // the last 11 modules, newest in the lowest bit
        for k in 0..<count {
            let dark = modules[start + k * step]
            if k > 0, dark == previous {
                runLength += 1
            } else {
                if runLength >= 5 { runs += runLength - 2 }
                runLength = 1
                previous = dark
            }
            window = (window << 1 | (dark ? 1 : 0)) & windowMask
            if k >= 10, window == lightThenPattern || window == patternThenLight {
                finderLike += 40
            }
        }
        if runLength >= 5 { runs += runLength - 2 }
        return (runs, finderLike)
    }
}

extension QRMatrix {
    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && QRMask.inverts(mask, x: x, y: y) {
                self[x, y].toggle()
            }
        }
    }

    /// Scored with format and version information and the dark module still unwritten
    /// (light), as in the spec's encoding procedure, where they are added after the mask
    /// is chosen. Some encoders score the finished symbol instead and may pick another
    /// mask; any mask reads back the same. Ties go to the lower mask number.
    func lowestPenaltyMask() -> Int {
        var best = (mask: 0, penalty: Int.max)
        for mask in QRMask.all {
            var candidate = self
            candidate.applyMask(mask)
            let penalty = QRPenalty(modules: candidate.modules, size: size).total
            if penalty < best.penalty { best = (mask, penalty) }
        }
        return best.mask
    }
}
