/// Where another recorder's file lies on the take's timeline, found from its sound alone:
/// the take's sound (every node's, on the shared clock, sample 0 at T0) is the reference.
///
/// 1. Coarse: the file is cut into chunks of 30 s or more, and each chunk's loudness
///    envelope (100 a second) is found in the whole take's envelope by GCC-PHAT. An
///    hour-long file is some 60 correlations of a few hundred thousand points.
/// 2. Fine: windows of 1.5 s (at most 150, overlapping in a file under 4 minutes) are
///    found to a fraction of a sample at 8 kHz near where the chunks (or the windows
///    before them) put them. A short file's slope rests on few windows: 10 side by side
///    over a phone's 16 s read its drift 2 ppm off, the same every time (the sound's own
///    timing, not noise); 40 overlapping ones, 1 ppm.
/// 3. Pieces: runs of windows on one line. The line's slope is the recorder's rate
///    error, its intercept the offset; a paused recorder makes a jump and a new piece.
///
/// Pure: the caller decodes both sounds to mono at `rate` and writes what follows.
public enum SoundAlignment {
    /// Hz of both sounds handed in: speech keeps its timing below 4 kHz.
    public static let rate = 8000
    static let envelopeBlock = 80
    static let envelopeRate = Double(rate / envelopeBlock)
    static let coarseChunkSeconds = 30.0
    static let coarseMaxChunks = 60
    static let coarseMinimumZ = 7.0
    static let windowSamples = 12_000
    static let searchSamples = 800
    static let maxWindows = 150
    static let fineMinimumZ = 6.0
    /// A window further than this from its piece's line is not on it: the windows of one
    /// voice scatter by tens of µs, and two voices heard at different distances make two
    /// lines a millisecond or more apart, which a wider band would join into a false slope.
    static let inlierSeconds = 0.0003
    /// A window this near its piece's line was found in the take's sound, though not on
    /// the line: sound from a person nearer the camera's mic than the recorder's (3.4 m
    /// of path is 10 ms) arrives earlier in one than in the other.
    static let foundSeconds = 0.015
    /// Below this share of the windows that could match, the file is refused.
    public static let minimumConfidence = 0.3
    public static let shortestFileSeconds = 4.0

    public static func align(reference: [Float], file: [Float]) throws(SoundAlignmentProblem) -> SoundAlignmentResult {
        let fileSeconds = Double(file.count) / Double(rate)
        guard fileSeconds >= shortestFileSeconds else { throw .tooShort(seconds: fileSeconds) }
        let fileLoudness = WindowLoudness(file), referenceLoudness = WindowLoudness(reference)
        guard fileLoudness.loud > 1e-5 else { throw .silentFile }
        guard referenceLoudness.loud > 1e-5 else { throw .silentReference }

        let groups = coarseGroups(reference: reference, file: file)
        let windows = fineWindows(reference: reference, file: file, groups: groups, fileLoudness: fileLoudness,
                                  referenceLoudness: referenceLoudness)
        var pieces = SoundAlignmentPieces.fit(windows)
        placePauses(&pieces, reference: reference, file: file)
        guard !pieces.isEmpty else { throw .noMatch(confidence: 0) }
        // The share of the windows that could have matched (sound in the file, and sound in
        // the take where the pieces put them) that did.
        var considered = 0, matched = 0
        for window in windows where window.fileSounding {
            let piece = pieces.min { $0.distance(toFileSeconds: window.fileSeconds) < $1.distance(toFileSeconds: window.fileSeconds) }!
            let at = piece.sessionTime(fileSeconds: window.fileSeconds)
            guard referenceLoudness.isSounding(atSeconds: at, lengthSeconds: Double(windowSamples) / Double(rate)) else { continue }
            considered += 1
            if pieces.contains(where: { $0.claims(window) }) { matched += 1 }
        }
        let confidence = considered == 0 ? 0 : Double(matched) / Double(considered)
        guard confidence >= minimumConfidence else { throw .noMatch(confidence: confidence) }
        return SoundAlignmentResult(pieces: pieces, confidence: confidence, windowsConsidered: considered,
                                    windowsMatched: matched, fileSeconds: fileSeconds)
    }

    /// A chunk's place found coarsely: its lag (take seconds minus file seconds) at its
    /// middle, and how clearly.
    struct ChunkPlace {
        var fileSeconds: Double
        var lagSeconds: Double
        var z: Double
    }

    /// Runs of chunks that agree on a line, each able to predict a lag anywhere near it.
    struct ChunkGroup {
        var chunks: [ChunkPlace]
        var coverage: ClosedRange<Double>

        func predictedLag(atFileSeconds f: Double) -> Double {
            guard chunks.count > 1 else { return chunks[0].lagSeconds }
            let line = LeastSquaresLine(chunks.map { ($0.fileSeconds, $0.lagSeconds) })
            return line.value(at: f)
        }
    }

    static func envelope(_ x: [Float]) -> [Float] {
        // The fourth root of the power: loud and quiet passages both count, as a
        // microphone near one person and far from the other hears them.
        rootMeanSquares(x, block: envelopeBlock).map { $0.squareRoot() }
    }

    /// The RMS of each whole block of `block` samples.
    static func rootMeanSquares(_ x: [Float], block: Int) -> [Float] {
        let blocks = x.count / block
        var out = [Float](repeating: 0, count: blocks)
        x.withUnsafeBufferPointer { input in
            for b in 0..<blocks {
                var sum: Float = 0
                for i in (b * block)..<((b + 1) * block) { sum += input[i] * input[i] }
                out[b] = (sum / Float(block)).squareRoot()
            }
        }
        return out
    }

    static func coarseGroups(reference: [Float], file: [Float]) -> [ChunkGroup] {
        let referenceEnvelope = envelope(reference), fileEnvelope = envelope(file)
        let chunk = min(fileEnvelope.count,
                        max(Int(coarseChunkSeconds * envelopeRate), fileEnvelope.count / coarseMaxChunks + 1))
        var starts = Array(stride(from: 0, to: max(fileEnvelope.count - chunk + 1, 1), by: chunk))
        if let last = starts.last, last + chunk < fileEnvelope.count { starts.append(fileEnvelope.count - chunk) }
        let correlator = PhaseCorrelator(target: referenceEnvelope, longestProbe: chunk)
        var places: [ChunkPlace] = []
        for start in starts {
            // A quarter of the chunk at least inside the take: less matches by chance.
            let lags = (-(chunk * 3 / 4))...(referenceEnvelope.count - chunk / 4)
            guard let peak = correlator.best(probe: fileEnvelope[start..<(start + chunk)], lags: lags),
                  peak.z >= coarseMinimumZ else { continue }
            let middle = (Double(start) + Double(chunk) / 2) / envelopeRate
            places.append(ChunkPlace(fileSeconds: middle, lagSeconds: (peak.lag - Double(start)) / envelopeRate, z: peak.z))
        }
        let half = Double(chunk) / envelopeRate / 2
        var groups: [ChunkGroup] = []
        for place in places {
            if let i = groups.lastIndex(where: { group in
                let last = group.chunks.last!
                return abs(place.lagSeconds - last.lagSeconds) <= 0.03 + 3e-4 * (place.fileSeconds - last.fileSeconds)
            }) {
                groups[i].chunks.append(place)
                groups[i].coverage = groups[i].coverage.lowerBound...(place.fileSeconds + half)
            } else {
                groups.append(ChunkGroup(chunks: [place], coverage: (place.fileSeconds - half)...(place.fileSeconds + half)))
            }
        }
        return groups
    }

    /// Between two pieces lies a pause whose moment the windows know only to a few
    /// seconds: short steps through that stretch are heard against where each piece would
    /// put them, and the pause is placed where the first piece stops matching and the
    /// second starts. Where the stretch is silent, its middle.
    static func placePauses(_ pieces: inout [SoundAlignmentPiece], reference: [Float], file: [Float]) {
        guard pieces.count > 1 else { return }
        let step = rate / 4, length = rate / 2
        for i in 1..<pieces.count {
            let zone = pieces[i - 1].fileEnd...max(pieces[i - 1].fileEnd, pieces[i].fileStart)
            let starts = Array(stride(from: Int(zone.lowerBound * Double(rate)) - length,
                                      through: Int(zone.upperBound * Double(rate)), by: step))
                .filter { $0 >= 0 && $0 + length <= file.count }
            guard !starts.isEmpty else { continue }
            func match(_ piece: SoundAlignmentPiece, _ start: Int) -> Double {
                let at = Int((piece.sessionTime(fileSeconds: Double(start) / Double(rate)) * Double(rate)).rounded())
                guard at >= 0, at + length <= reference.count else { return 0 }
                return max(0, pearson(file[start..<(start + length)], reference[at..<(at + length)]))
            }
            let before = starts.map { match(pieces[i - 1], $0) }, after = starts.map { match(pieces[i], $0) }
            // The split that leaves the most matching on each side of it.
            var best = 0, bestScore = -1.0
            for split in 0...starts.count {
                let score = before[..<split].reduce(0, +) + after[split...].reduce(0, +)
                if score > bestScore + 1e-9 { (best, bestScore) = (split, score) }
            }
            let pause = bestScore > 0
                ? Double(best < starts.count ? starts[best] + length / 2 : starts[starts.count - 1] + length) / Double(rate)
                : (zone.lowerBound + zone.upperBound) / 2
            pieces[i - 1].fileEnd = min(max(pause, pieces[i - 1].fileStart), pieces[i].fileEnd)
            pieces[i].fileStart = pieces[i - 1].fileEnd
        }
    }

    static func pearson(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0
        for (x, y) in zip(a, b) {
            let (dx, dy) = (Double(x), Double(y))
            sa += dx; sb += dy; saa += dx * dx; sbb += dy * dy; sab += dx * dy
        }
        let n = Double(a.count)
        let va = saa - sa * sa / n, vb = sbb - sb * sb / n
        guard va > 1e-12, vb > 1e-12 else { return 0 }
        return (sab - sa * sb / n) / (va * vb).squareRoot()
    }

    /// One fine window of the file: where it matched (nil: nowhere it was looked for).
    struct Window {
        var fileSeconds: Double
        var fileSounding: Bool
        var lagSeconds: Double?
        var z: Double
    }

    static func fineWindows(reference: [Float], file: [Float], groups: [ChunkGroup], fileLoudness: WindowLoudness,
                            referenceLoudness: WindowLoudness) -> [Window] {
        let hop = max(windowSamples / 4, (file.count - windowSamples) / maxWindows + 1)
        let windowSeconds = Double(windowSamples) / Double(rate)
        var out: [Window] = []
        // The last window matched and the slope of those before it: a recorder's drift is
        // followed from window to window, not from the coarse chunks' 10 ms steps.
        var track: (fileSeconds: Double, lagSeconds: Double)?
        var trackSlope = 0.0
        var recent: [(Double, Double)] = []
        for start in stride(from: 0, through: file.count - windowSamples, by: hop) {
            let f = Double(start) / Double(rate)
            let middle = f + windowSeconds / 2
            let sounding = fileLoudness.isSounding(atSeconds: f, lengthSeconds: windowSeconds)
            var window = Window(fileSeconds: middle, fileSounding: sounding, lagSeconds: nil, z: 0)
            defer { out.append(window) }
            guard sounding else { continue }
            var candidates: [Double] = []
            if let track { candidates.append(track.lagSeconds + trackSlope * (middle - track.fileSeconds)) }
            let margin = coarseChunkSeconds
            for group in groups where (group.coverage.lowerBound - margin)...(group.coverage.upperBound + margin) ~= middle {
                let lag = group.predictedLag(atFileSeconds: middle)
                if !candidates.contains(where: { abs($0 - lag) < 0.02 }) { candidates.append(lag) }
            }
            for candidate in candidates {
                guard let (lag, z) = search(reference: reference, file: file, fileStart: start, predictedLagSeconds: candidate),
                      z > window.z else { continue }
                window.z = z
                window.lagSeconds = z >= fineMinimumZ ? lag : nil
            }
            guard let lag = window.lagSeconds else { continue }
            if let track, abs(lag - (track.lagSeconds + trackSlope * (middle - track.fileSeconds))) > 2 * foundSeconds {
                recent = []  // a jump: a new piece begins, its drift is learnt again
            }
            recent.append((middle, lag))
            if recent.count > 8 { recent.removeFirst() }
            trackSlope = recent.count >= 3 ? LeastSquaresLine(recent).slope : 0
            track = (middle, lag)
        }
        return out
    }

    /// The fine lag of the file's window at `fileStart`, searched ±0.1 s around the
    /// prediction: nil when that part of the take is not there.
    static func search(reference: [Float], file: [Float], fileStart: Int,
                       predictedLagSeconds: Double) -> (Double, Double)? {
        let predicted = fileStart + Int((predictedLagSeconds * Double(rate)).rounded())
        let segmentStart = predicted - searchSamples
        let segmentEnd = predicted + windowSamples + searchSamples
        let first = max(segmentStart, 0), end = min(segmentEnd, reference.count)
        guard end - first >= windowSamples else { return nil }
        var target = [Float](repeating: 0, count: segmentEnd - segmentStart)
        for i in first..<end { target[i - segmentStart] = reference[i] }
        let correlator = PhaseCorrelator(target: target, longestProbe: windowSamples, negativeLags: false)
        guard let peak = correlator.best(probe: file[fileStart..<(fileStart + windowSamples)],
                                         lags: 0...(2 * searchSamples)) else { return nil }
        let lagSamples = Double(segmentStart) + peak.lag - Double(fileStart)
        return (lagSamples / Double(rate), peak.z)
    }
}

/// Why a file could not be placed, as a sentence that says what to do.
public enum SoundAlignmentProblem: Error, Equatable, CustomStringConvertible {
    case tooShort(seconds: Double)
    case silentFile
    case silentReference
    case noMatch(confidence: Double)

    public var description: String {
        switch self {
        case .tooShort(let seconds):
            return "it holds \(Self.format(seconds)) s of sound, and at least \(Self.format(SoundAlignment.shortestFileSeconds)) s are needed to place it by its sound"
        case .silentFile:
            return "it is silent: there is no sound to place it by"
        case .silentReference:
            return "the take recorded no sound on any camera, so there is nothing to place the file against"
        case .noMatch(let confidence):
            return "no match with the take's sound (\(Int((confidence * 100).rounded())) % of the file's sound found in it, "
                + "\(Int(SoundAlignment.minimumConfidence * 100)) % needed): is this file from another take?"
        }
    }

    private static func format(_ x: Double) -> String {
        let tenths = Int((x * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// How loud a sound is window by window, to tell speech from room noise: a window sounds
/// when its level reaches a tenth of the sound's loud passages (its 90th percentile).
struct WindowLoudness {
    static let block = 800
    private let rms: [Float]
    let loud: Float

    init(_ x: [Float]) {
        let rms = SoundAlignment.rootMeanSquares(x, block: Self.block)
        self.rms = rms
        let sorted = rms.sorted()
        loud = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
    }

    func isSounding(atSeconds start: Double, lengthSeconds: Double) -> Bool {
        let perSecond = Double(SoundAlignment.rate) / Double(Self.block)
        let first = max(0, Int(start * perSecond)), last = min(rms.count, Int((start + lengthSeconds) * perSecond))
        guard last - first >= Int(lengthSeconds * perSecond / 2) else { return false }
        let threshold = max(loud / 10, 1e-5)
        return rms[first..<last].contains { $0 >= threshold }
    }
}

/// y = intercept + slope·x by least squares.
struct LeastSquaresLine {
    var slope: Double
    var intercept: Double

    init(_ points: [(Double, Double)]) {
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.0 } / n, my = points.reduce(0) { $0 + $1.1 } / n
        var sxx = 0.0, sxy = 0.0
        for (x, y) in points {
            sxx += (x - mx) * (x - mx)
            sxy += (x - mx) * (y - my)
        }
        slope = sxx > 0 ? sxy / sxx : 0
        intercept = my - slope * mx
    }

    func value(at x: Double) -> Double { intercept + slope * x }
}
