/// A stretch of a file that ran without a pause, placed on the take's timeline: file
/// second `f` (counted at the file's nominal rate) was recorded at take second
/// `sessionAtFileZero + f / (1 + driftPPM·1e-6)`.
public struct SoundAlignmentPiece: Sendable, Equatable {
    /// The part of the file this piece holds, seconds from the file's first sample.
    public var fileStart: Double
    public var fileEnd: Double
    public var sessionAtFileZero: Double
    /// How much faster the file's sample clock ran than the shared clock.
    public var driftPPM: Double
    /// Windows on the line, and their scatter about it (RMS, µs).
    public var matched: Int
    public var residualMicroseconds: Double

    public func sessionTime(fileSeconds f: Double) -> Double { sessionAtFileZero + f / (1 + driftPPM * 1e-6) }

    /// Take second at which the piece's first sample was recorded.
    public var sessionStart: Double { sessionTime(fileSeconds: fileStart) }

    func distance(toFileSeconds f: Double) -> Double {
        f < fileStart ? fileStart - f : (f > fileEnd ? f - fileEnd : 0)
    }

    /// Whether the window was found in the take where this piece puts it (within the
    /// spread that mics at different distances give).
    func claims(_ window: SoundAlignment.Window) -> Bool {
        guard let lag = window.lagSeconds, (fileStart...fileEnd) ~= window.fileSeconds else { return false }
        return abs(sessionTime(fileSeconds: window.fileSeconds) - window.fileSeconds - lag) <= SoundAlignment.foundSeconds
    }
}

/// What `SoundAlignment.align` found.
public struct SoundAlignmentResult: Sendable, Equatable {
    /// In file order; more than one when the recorder was paused.
    public var pieces: [SoundAlignmentPiece]
    /// The share (0–1) of the windows that could match (sound in the file and in the take
    /// where the file was placed) that did.
    public var confidence: Double
    public var windowsConsidered: Int
    public var windowsMatched: Int
    public var fileSeconds: Double

    /// Take second at which the file's first sample was recorded (negative: before T0).
    public var offsetSeconds: Double { pieces[0].sessionAtFileZero }

    /// The pieces' drift, weighed by how much of the file each holds.
    public var driftPPM: Double {
        let weights = pieces.map { max($0.fileEnd - $0.fileStart, 1e-9) }
        return zip(pieces, weights).reduce(0) { $0 + $1.0.driftPPM * $1.1 } / weights.reduce(0, +)
    }

    /// The piece that holds file second `f`: the one it lies in, or else the nearer (so a
    /// pause's moment, known to a window's length, is split between its neighbours).
    public func piece(atFileSeconds f: Double) -> SoundAlignmentPiece {
        pieces.min { $0.distance(toFileSeconds: f) < $1.distance(toFileSeconds: f) }!
    }
}

/// From matched windows to pieces: consecutive windows near one line (within 30 ms of where
/// the run so far predicts: who speaks moves a window by the difference of their paths to
/// the two mics, a pause by far more) make a run. Each run of three or more is fitted to
/// the line that the most windows lie within 0.3 ms of (every pair of windows tried, as a
/// deterministic RANSAC), then by least squares over those: when a lavalier hears one
/// person close and the other far, the line follows the person it hears best.
enum SoundAlignmentPieces {
    static let minimumWindows = 3

    static func fit(_ windows: [SoundAlignment.Window]) -> [SoundAlignmentPiece] {
        var runs: [[(Double, Double)]] = []
        for window in windows {
            guard let lag = window.lagSeconds else { continue }
            let point = (window.fileSeconds, lag)
            let near = 2 * SoundAlignment.foundSeconds
            if let run = runs.last, let predicted = predict(run, at: point.0), abs(predicted - lag) <= near {
                runs[runs.count - 1].append(point)
            } else if let i = runs.lastIndex(where: { run in predict(run, at: point.0).map { abs($0 - lag) <= near } ?? false }),
                      runs[i].count >= minimumWindows {
                // Back on an earlier run after a stray window.
                runs[i].append(point)
            } else {
                runs.append([point])
            }
        }
        var pieces: [SoundAlignmentPiece] = []
        for run in runs where run.count >= minimumWindows {
            guard let piece = piece(from: run) else { continue }
            // Pieces cannot overlap in the file: a recorder writes its sound in order. Of
            // two that do, the one with more windows is the true one.
            if let i = pieces.firstIndex(where: { $0.fileEnd > piece.fileStart && piece.fileEnd > $0.fileStart }) {
                if pieces[i].matched < piece.matched { pieces[i] = piece }
                continue
            }
            pieces.append(piece)
        }
        return merged(pieces.sorted { $0.fileStart < $1.fileStart }, runs: runs)
    }

    /// Neighbours on one line are one piece that a stray window split: a pause is a jump.
    private static func merged(_ pieces: [SoundAlignmentPiece], runs: [[(Double, Double)]]) -> [SoundAlignmentPiece] {
        var out: [SoundAlignmentPiece] = []
        for piece in pieces {
            if let last = out.last,
               abs(last.sessionTime(fileSeconds: piece.fileStart) - piece.sessionTime(fileSeconds: piece.fileStart)) <= SoundAlignment.foundSeconds {
                let points = runs.joined().filter { point in
                    (last.fileStart...piece.fileEnd) ~= point.0
                        && (abs(last.sessionTime(fileSeconds: point.0) - point.0 - point.1) <= SoundAlignment.foundSeconds
                            || abs(piece.sessionTime(fileSeconds: point.0) - point.0 - point.1) <= SoundAlignment.foundSeconds)
                }
                if let joined = Self.piece(from: points.sorted { $0.0 < $1.0 }) {
                    out[out.count - 1] = joined
                    continue
                }
            }
            out.append(piece)
        }
        return out
    }

    private static func predict(_ run: [(Double, Double)], at x: Double) -> Double? {
        guard let last = run.last else { return nil }
        let recent = Array(run.suffix(8))
        let slope = recent.count >= 3 ? LeastSquaresLine(recent).slope : 0
        return last.1 + slope * (x - last.0)
    }

    private static func piece(from run: [(Double, Double)]) -> SoundAlignmentPiece? {
        guard run.count >= 2 else { return nil }
        func inliers(slope: Double, intercept: Double) -> [(Double, Double)] {
            run.filter { abs($0.1 - intercept - slope * $0.0) <= SoundAlignment.inlierSeconds }
        }
        // Long runs try a spread subset of pairs: 60 windows give every pair of 1,770.
        let step = max(1, run.count / 60)
        var best: [(Double, Double)] = []
        for i in stride(from: 0, to: run.count, by: step) {
            for j in stride(from: i + 1, to: run.count, by: step) where run[j].0 > run[i].0 {
                let slope = (run[j].1 - run[i].1) / (run[j].0 - run[i].0)
                // Beyond ±1,000 ppm no recorder runs: a pair from two people's clusters.
                guard abs(slope) < 1e-3 else { continue }
                let found = inliers(slope: slope, intercept: run[i].1 - slope * run[i].0)
                if found.count > best.count { best = found }
            }
        }
        let inliers = best
        guard inliers.count >= minimumWindows else { return nil }
        let line = LeastSquaresLine(inliers)
        let residual = (inliers.reduce(0) { $0 + ($1.1 - line.value(at: $1.0)) * ($1.1 - line.value(at: $1.0)) }
            / Double(inliers.count)).squareRoot()
        // lag = take − file = a + f/(1+d) − f, so its slope is 1/(1+d) − 1.
        let drift = 1 / (1 + line.slope) - 1
        let half = Double(SoundAlignment.windowSamples) / Double(SoundAlignment.rate) / 2
        let found = run.filter { abs($0.1 - line.value(at: $0.0)) <= SoundAlignment.foundSeconds }
        return SoundAlignmentPiece(fileStart: max(0, found.first!.0 - half), fileEnd: found.last!.0 + half,
                                   sessionAtFileZero: line.intercept, driftPPM: drift * 1e6, matched: inliers.count,
                                   residualMicroseconds: residual * 1e6)
    }
}
