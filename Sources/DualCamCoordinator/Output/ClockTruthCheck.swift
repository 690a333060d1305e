import DualCamCore
import DualCamMedia

/// The sync report's ground truth, where there is one: a camera whose source drew the DCTC
/// test pattern carries its true capture instants in its pictures, so its file shows the
/// clock's real error (`ClockTruth`), and two such files how far apart the cameras really
/// were. Bounds and timestamps cannot see that: a path asymmetry, a wrong rate, a lost
/// exchange all hide in them (`pairSpread` once read 1 µs while the cameras were 0.8 ms
/// apart).
enum ClockTruthCheck {
    struct Camera: Codable, Sendable {
        var camera: String
        /// Frame's true instant minus the shared instant it was stamped with.
        var trueError: ClockTruth.Figures
        /// Against the first camera that carries the pattern (absent for that one).
        var reference: String?
        var pairError: ClockTruth.Figures?
    }

    struct Report: Codable, Sendable {
        /// How much of the session was read (from its start): decoding every frame of an
        /// hour would make finishing slow for a test figure.
        var measuredSeconds: Double
        var cameras: [Camera]
        /// Largest minus smallest true error across every camera with the pattern, frame
        /// by frame (`ClockTruth.spread`); absent with fewer than two such cameras, and in
        /// manifests from before it was measured.
        var spread: ClockTruth.Figures? = nil
    }

    static let measuredNanoseconds: Int64 = 300_000_000_000

    /// nil when fewer than one camera carries the pattern. `sources` are the agents' own
    /// descriptions: only a synthetic source is read (a real picture is not decoded for
    /// nothing), and its codes must then prove to be a pattern.
    static func measure(files: [String], names: [String], sources: [String?], t0Shared: Int64,
                        durationNanoseconds: Int64, periodNanoseconds: Int64) -> Report? {
        let limit = min(durationNanoseconds, measuredNanoseconds)
        var read: [(name: String, frames: [ClockTruth.Frame])] = []
        for (i, path) in files.enumerated() where sources[i]?.hasPrefix("synthetic") ?? false {
            var frames: [ClockTruth.Frame] = []
            try? MediaProbe.forEachFrameWhile(path: path) { frame in
                guard frame.ptsNanoseconds <= limit else { return false }
                frames.append(.init(sharedNanoseconds: t0Shared + frame.ptsNanoseconds, code: DCTC.read(frame.image)))
                return true
            }
            if ClockTruth.isPattern(frames) { read.append((names[i], frames)) }
        }
        guard let first = read.first else { return nil }
        let cameras = read.compactMap { camera -> Camera? in
            guard let truth = ClockTruth.Figures(camera.frames.map(ClockTruth.error)) else { return nil }
            guard camera.name != first.name else { return Camera(camera: camera.name, trueError: truth) }
            let pair = ClockTruth.Figures(ClockTruth.pairErrors(camera.frames, against: first.frames, periodNanoseconds: periodNanoseconds))
            return Camera(camera: camera.name, trueError: truth, reference: first.name, pairError: pair)
        }
        return Report(measuredSeconds: Double(limit) / 1e9, cameras: cameras,
                      spread: ClockTruth.Figures(ClockTruth.spread(read.map(\.frames), periodNanoseconds: periodNanoseconds)))
    }

    /// A warning for each camera further than a tenth of a frame from its reference on
    /// some frame: visible as a lip-sync or motion mismatch in a cut between them.
    static func warnings(_ report: Report, periodNanoseconds: Int64) -> [String] {
        let limit = Double(periodNanoseconds) / 10 / 1000
        return report.cameras.compactMap { c in
            guard let pair = c.pairError, let reference = c.reference, pair.maxMicroseconds > limit else { return nil }
            return String(format: "%@ was up to %.2f ms from %@ (frame codes; a tenth of a frame is %.2f ms)",
                          c.camera, pair.maxMicroseconds / 1000, reference, limit / 1000)
        }
    }
}
