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
            let row = Array(modules[i * size..<(i + 1) * size])
            let column = (0..<size).map { modules[$0 * size + i] }
            for line in [row, column] {
                runs += Self.runPenalty(line)
                finderLike += Self.finderLikePenalty(line)
            }
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

    /// 3 points for a run of 5, one more for each module beyond.
    static func runPenalty(_ line: [Bool]) -> Int {
        guard !line.isEmpty else { return 0 }
        var penalty = 0
        var start = 0
        for i in 1...line.count where i == line.count || line[i] != line[start] {
            let length = i - start
            if length >= 5 { penalty += length - 2 }
            start = i
        }
        return penalty
    }

    /// 40 points for each 11-module window that reads four light modules and then
    /// dark-light-dark-dark-dark-light-dark (a finder's 1:1:3:1:1), or that pattern and
    /// then four light. The spec leaves open whether the margin beyond the edge counts
    /// and whether light on both sides counts twice; this is the common reading (windows
    /// wholly inside the symbol, each window counted), which keeps the chosen mask the
    /// same as other widely used encoders'.
    static func finderLikePenalty(_ line: [Bool]) -> Int {
        let core = [true, false, true, true, true, false, true]
        let margin = [Bool](repeating: false, count: 4)
        let windows = [margin + core, core + margin]
        let width = core.count + margin.count
        guard line.count >= width else { return 0 }
        var penalty = 0
        for start in 0...(line.count - width) {
            let window = line[start..<start + width]
            for candidate in windows where window.elementsEqual(candidate) {
                penalty += 40
            }
        }
        return penalty
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

    /// Scored with format and version information still unwritten (light), as in the
    /// spec's encoding procedure, where they are added after the mask is chosen. Some
    /// encoders score the finished symbol instead and may pick another mask; any mask
    /// reads back the same. Ties go to the lower mask number.
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
