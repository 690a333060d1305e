import DualCamCore
import Foundation

/// The manifest's `framePhase`: camera phase, which is not clock error. The clock says
/// when each frame was captured (to tens of microseconds); the phase is when the cameras
/// chose to capture. Free-running cameras start their frames wherever their sensors do,
/// so pictures shown together can be up to half a frame apart however good the clock.
struct FramePhaseRecord: Codable, Sendable, Equatable {
    /// Two cameras in the combined picture: the difference between the capture instants
    /// of the frames it put together, on every frame where both showed a picture.
    struct Pair: Codable, Sendable, Equatable {
        var cameras: [String]
        var medianMs: Double
        var p95Ms: Double
        var maxMs: Double
        /// How fast their phases moved apart (their crystals' difference).
        var driftMsPerMinute: Double
    }

    /// One camera against the take's frame grid (instants k·P from T0 on the shared clock).
    struct Camera: Codable, Sendable, Equatable {
        var camera: String
        var medianMs: Double
        var p95Ms: Double
        var maxMs: Double
        /// Signed: its frames came this much later each minute (0 when genlocked).
        var driftMsPerMinute: Double
    }

    var pairs: [Pair]
    var cameras: [Camera]
    var frameMs: Double
    /// More than a quarter frame apart (95th percentile of some pair).
    var outOfStep: Bool
    /// What would help, when out of step.
    var advice: String?

    init(_ phase: FramePhase, names: [String], genlocked: Bool) {
        func ms(_ ns: Int64) -> Double { (Double(ns) / 1e4).rounded() / 100 }
        func name(_ s: Int) -> String { names.indices.contains(s) ? names[s] : "camera \(s + 1)" }
        func perMinute(_ ns: Double) -> Double { (ns / 1e4).rounded() / 100 }
        pairs = phase.pairs.map {
            Pair(cameras: $0.streams.map(name), medianMs: ms($0.apart.medianNanoseconds), p95Ms: ms($0.apart.p95Nanoseconds),
                 maxMs: ms($0.apart.maxNanoseconds), driftMsPerMinute: perMinute($0.driftNanosecondsPerMinute))
        }
        cameras = phase.cameras.filter { $0.grid.count > 0 }.map {
            Camera(camera: name($0.stream), medianMs: ms($0.grid.medianNanoseconds), p95Ms: ms($0.grid.p95Nanoseconds),
                   maxMs: ms($0.grid.maxNanoseconds), driftMsPerMinute: perMinute($0.driftNanosecondsPerMinute))
        }
        frameMs = ms(phase.periodNanoseconds)
        outOfStep = phase.isOutOfStep
        advice = outOfStep ? Self.advice(genlocked: genlocked) : nil
    }

    static func advice(genlocked: Bool) -> String {
        genlocked
            ? "genlocked sources should line up: check each camera's clock (the clock truth above) and its frame drops"
            : "the cameras run free, each at its own phase: a camera that can be steered is phase-locked onto the grid "
                + "(on unless --no-phase-lock; the synthetic source's --free-run), a genlocked one starts on it; a higher "
                + "frame rate halves the worst case"
    }

    /// The warning for the manifest and the take's end, when out of step.
    var warning: String? {
        guard outOfStep, let worst = pairs.max(by: { $0.p95Ms < $1.p95Ms }) else { return nil }
        return String(format: "%@ and %@ were %.1f ms apart in the combined picture (p95; max %.1f ms), more than a quarter frame (%.1f ms): %@",
                      worst.cameras.first ?? "", worst.cameras.last ?? "", worst.p95Ms, worst.maxMs, frameMs / 4,
                      advice ?? "")
    }

    /// `show`'s lines.
    var lines: [String] {
        pairs.map {
            String(format: "  %@ – %@: median %.2f ms, p95 %.2f ms, max %.2f ms apart, drifting %+.2f ms/min",
                   $0.cameras.first ?? "", $0.cameras.last ?? "", $0.medianMs, $0.p95Ms, $0.maxMs, $0.driftMsPerMinute)
        } + cameras.map {
            String(format: "  %@ against the frame grid: median %.2f ms, p95 %.2f ms, max %.2f ms, drifting %+.2f ms/min",
                   $0.camera, $0.medianMs, $0.p95Ms, $0.maxMs, $0.driftMsPerMinute)
        } + (advice.map { ["  more than a quarter frame (\(String(format: "%.1f", frameMs / 4)) ms) apart: " + $0] } ?? [])
    }
}
