/// What the frames of a DCTC test pattern say about the clock, from the files alone.
///
/// Each synthetic frame carries the true instant it was captured (`TIMECODE.md`), and its
/// presentation time says which shared-clock instant the agent believed that was; the
/// difference is the clock's true error, which nothing else (bounds, timestamps) can see.
/// The code has 100 µs steps: the centre of the step is taken, so one frame is exact to
/// ±50 µs and the figures over many frames of varying phase to a few microseconds.
public enum ClockTruth {
    public struct Frame: Sendable, Hashable {
        /// The shared-clock instant the frame's presentation time stands for.
        public var sharedNanoseconds: Int64
        public var code: UInt32

        public init(sharedNanoseconds: Int64, code: UInt32) {
            self.sharedNanoseconds = sharedNanoseconds
            self.code = code
        }
    }

    /// Signed error of magnitudes over a set of frames, in microseconds.
    public struct Figures: Codable, Sendable, Hashable {
        public var frames: Int
        /// Signed mean: a constant offset (a path asymmetry) shows here.
        public var meanMicroseconds: Double
        /// Percentiles and maximum of the magnitude.
        public var p50Microseconds: Double
        public var p99Microseconds: Double
        public var maxMicroseconds: Double

        public init?(_ errors: [Int64]) {
            guard !errors.isEmpty else { return nil }
            let magnitudes = errors.map(\.magnitude).sorted()
            frames = errors.count
            meanMicroseconds = Double(errors.reduce(0, +)) / Double(errors.count) / 1000
            p50Microseconds = Double(magnitudes[(magnitudes.count - 1) / 2]) / 1000
            p99Microseconds = Double(magnitudes[(magnitudes.count - 1) * 99 / 100]) / 1000
            maxMicroseconds = Double(magnitudes[magnitudes.count - 1]) / 1000
        }
    }

    /// The frame's true capture instant (the centre of its code's step) minus the shared
    /// instant it was stamped with; positive when the camera's clock ran behind.
    public static func error(_ frame: Frame) -> Int64 {
        let tick = DCTC.tickNanoseconds
        let stamped = DCTC.code(trueNanoseconds: frame.sharedNanoseconds)
        let below = frame.sharedNanoseconds - Int64(floorDividing: frame.sharedNanoseconds, by: tick) * tick
        return DCTC.differenceNanoseconds(frame.code, stamped) + tick / 2 - below
    }

    /// Whether the codes are a DCTC pattern at all (a real camera's picture reads as noise):
    /// nine in ten neighbouring frames must step by their time apart, to within 1 ms.
    public static func isPattern(_ frames: [Frame]) -> Bool {
        guard frames.count >= 10 else { return false }
        var steady = 0
        for (a, b) in zip(frames, frames.dropFirst()) {
            let step = DCTC.differenceNanoseconds(b.code, a.code) - (b.sharedNanoseconds - a.sharedNanoseconds)
            if step.magnitude <= 1_000_000 { steady += 1 }
        }
        return steady * 10 >= (frames.count - 1) * 9
    }

    /// How far apart two cameras really were: for each frame of `camera` stamped within a
    /// quarter of a frame of one of `reference`'s, the difference of their true instants
    /// minus that of their stamps (both cameras' clock errors together).
    public static func pairErrors(_ camera: [Frame], against reference: [Frame], periodNanoseconds: Int64) -> [Int64] {
        var byInstant: [Int64: Frame] = [:]
        let slot = max(periodNanoseconds / 2, 1)
        for f in reference { byInstant[Int64(floorDividing: f.sharedNanoseconds + slot / 2, by: slot)] = f }
        var errors: [Int64] = []
        for f in camera {
            guard let r = byInstant[Int64(floorDividing: f.sharedNanoseconds + slot / 2, by: slot)],
                  (r.sharedNanoseconds - f.sharedNanoseconds).magnitude <= periodNanoseconds / 4 else { continue }
            errors.append(error(f) - error(r))
        }
        return errors
    }

    /// How far apart all the cameras really were, frame by frame: at each instant of the
    /// first camera where at least two cameras have a frame (each within a quarter of a
    /// frame of it), the largest true error minus the smallest. With more than two cameras
    /// this is what a cut between any two of them can show, which pair errors against one
    /// reference understate (two cameras each 0.1 ms off it in opposite ways are 0.2 ms
    /// apart).
    public static func spread(_ cameras: [[Frame]], periodNanoseconds: Int64) -> [Int64] {
        guard let reference = cameras.first, cameras.count >= 2 else { return [] }
        let slot = max(periodNanoseconds / 2, 1)
        func key(_ f: Frame) -> Int64 { Int64(floorDividing: f.sharedNanoseconds + slot / 2, by: slot) }
        let indexed: [[Int64: Frame]] = cameras.map { frames in
            var byInstant: [Int64: Frame] = [:]
            for f in frames { byInstant[key(f)] = f }
            return byInstant
        }
        var spreads: [Int64] = []
        for r in reference {
            let errors = indexed.compactMap { byInstant -> Int64? in
                guard let f = byInstant[key(r)], (f.sharedNanoseconds - r.sharedNanoseconds).magnitude <= periodNanoseconds / 4 else { return nil }
                return error(f)
            }
            guard errors.count >= 2, let low = errors.min(), let high = errors.max() else { continue }
            spreads.append(high - low)
        }
        return spreads
    }
}

extension Int64 {
    /// Floor division (Swift's `/` truncates toward zero).
    init(floorDividing a: Int64, by b: Int64) {
        let q = a / b
        self = (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
