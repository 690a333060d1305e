import Foundation
import Glibc

/// The coordinator's own CPU while a take records, from getrusage: receiving, verifying
/// and remuxing every camera's segments and decoding, composing and encoding the live
/// composite all grow with the number of cameras, so the figure per camera says how many
/// cameras a laptop can take (issue 19). Measured from the take's outputs being opened
/// (just before StartAt) to the last segment in, so the finishing after it stays out.
struct CoordinatorCPU: Codable, Sendable {
    /// Wall-clock span measured.
    var seconds: Double
    /// User and system time of the whole process over that span.
    var cpuSeconds: Double
    var cameras: Int
    /// `cpuSeconds / seconds`: 1.0 is one core busy the whole time.
    var cores: Double
    /// Percent of one core per camera.
    var percentOfCorePerCamera: Double

    var summary: String {
        String(format: "coordinator CPU while recording: %.1f s in %.1f s (%.0f %% of a core), %.1f %% of a core per camera (%d %@)",
               cpuSeconds, seconds, cores * 100, percentOfCorePerCamera, cameras, cameras == 1 ? "camera" : "cameras")
    }

    /// Started where the measure begins.
    struct Meter: Sendable {
        let startWall = ContinuousClock.now
        let startCPU = Self.processCPUSeconds()

        func read(cameras: Int) -> CoordinatorCPU {
            let (s, atto) = (ContinuousClock.now - startWall).components
            let seconds = max(Double(s) + Double(atto) / 1e18, 1e-6)
            let cpu = Self.processCPUSeconds() - startCPU
            let cores = cpu / seconds
            return CoordinatorCPU(seconds: seconds, cpuSeconds: cpu, cameras: cameras, cores: cores,
                                  percentOfCorePerCamera: cores * 100 / Double(max(cameras, 1)))
        }

        static func processCPUSeconds() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }
    }
}
