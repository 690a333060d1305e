import DualCamCore
import DualCamMedia
import Foundation

/// `dualcam-bench start-phase`: a V4L2 camera started N times, each time first as it comes
/// (the measuring start) and then aligned onto the grid of its own CLOCK_MONOTONIC, as the
/// agent does at every Prepare (there on the shared clock). Prints each start's first-frame
/// phase both ways and their summary: run it in the vivid guest by
/// tools/bench/vivid-start-phase.sh, or on a machine with a camera.
func runStartPhaseMeasurement(arguments: [String]) throws {
    var device = "/dev/video0", starts = 10, width = 320, height = 180, rate = FrameRate.fps30
    var rest = arguments[...]
    while let option = rest.popFirst() {
        guard let value = rest.popFirst() else { throw BenchUsage("\(option) needs a value") }
        switch option {
        case "--device": device = value
        case "--starts": starts = max(Int(value) ?? 0, 1)
        case "--size":
            let parts = value.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw BenchUsage("--size wants WIDTHxHEIGHT") }
            (width, height) = (parts[0], parts[1])
        case "--fps":
            guard let fps = Int64(value) else { throw BenchUsage("--fps wants a whole number") }
            rate = FrameRate(fps, 1)
        default: throw BenchUsage("unknown option \(option)")
        }
    }
    print("start phase: \(device) \(width)x\(height)@\(rate.decimalText), \(starts) starts, first frame against the grid")
    print("start  latency ms  unaligned ms  aligned ms  aligned starts")
    var unaligned: [Double] = [], aligned: [Double] = []
    for index in 1...starts {
        let capture = try V4L2Capture(path: device, width: width, height: height, rate: rate, allowPassThrough: false)
        let report = try capture.startAligned(StartAlignment(rate: capture.format.rate ?? rate), toGrid: { $0 }, fromGrid: { $0 },
                                              timeoutMilliseconds: 5_000)
        capture.stop()
        let row = [report.latencyNanoseconds, report.unalignedPhaseNanoseconds, report.alignedPhaseNanoseconds]
            .map { Double($0) / 1e6 }
        unaligned.append(abs(row[1]))
        aligned.append(abs(row[2]))
        print(String(format: "%5d  %10.2f  %12.2f  %10.2f  %14d", index, row[0], row[1], row[2], report.starts))
    }
    func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        return String(format: "median %.2f ms, max %.2f ms", sorted[sorted.count / 2], sorted.last ?? 0)
    }
    print("unaligned |phase|: \(summary(unaligned))")
    print("aligned   |phase|: \(summary(aligned))")
}

struct BenchUsage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "dualcam-bench start-phase: \(description)" }
}
