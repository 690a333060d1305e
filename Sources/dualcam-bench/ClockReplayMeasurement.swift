import DualCamCore
import Foundation

/// `dualcam-bench clock-replay FILE... [--same-clock]`: an agent's logged clock exchanges
/// (`dualcam-agent run --clock-log FILE`) run again through the agent's estimator. With
/// `--same-clock` (the agent and the coordinator read one kernel clock, as the host agent
/// of `tools/bench/clock-network.sh` does) the true error at every instant is known, and
/// is printed against the bound the estimate gave for it.
func runClockReplay(arguments: [String]) throws {
    let sameClock = arguments.contains("--same-clock")
    let files = arguments.filter { $0 != "--same-clock" }
    guard !files.isEmpty else { fatalError("clock-replay needs a clock log (dualcam-agent run --clock-log FILE)") }
    for file in files {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let rows = text.split(separator: "\n").compactMap(ClockReplay.Row.init(line:))
        let f = ClockReplay().run(rows, sameClock: sameClock)
        func us(_ ns: Int64) -> String { String(ns / 1000) }
        var line = "\(file): \(f.exchanges) exchanges (\(f.fedOverTLS) over TLS), "
        line += f.lockedAfterNanoseconds.map { "locked after \($0 / 1_000_000) ms, " } ?? "never locked, "
        line += "\(f.checks) instants checked; bound median/p99/max \(us(f.bound.p50Nanoseconds))/\(us(f.bound.p99Nanoseconds))/\(us(f.bound.maxNanoseconds)) µs"
        if sameClock {
            line += String(format: "; true error median/p99/max %@/%@/%@ µs (mean %+.1f µs); outside the bound at %d",
                           us(f.error.p50Nanoseconds), us(f.error.p99Nanoseconds), us(f.error.maxNanoseconds),
                           f.meanSignedErrorNanoseconds / 1000, f.boundBelowError)
        }
        print(line)
    }
}
