import DualCamCoordinator
import DualCamCore
import Foundation

/// `dualcam-bench director [--crosstalk DB,...] [--script FILE] [--style S]`: renders the
/// scripted conversation (tools/conversation, espeak-ng) at each crosstalk, runs the
/// director over it, and prints the issue-31 figures and the analysis's CPU cost.
func runDirectorBenchmarks(arguments: [String]) throws {
    var crosstalks = [6.0, 12.0]
    var script: String?
    var style = DirectorTuning.Style.standard
    var i = 0
    while i < arguments.count {
        let value = i + 1 < arguments.count ? arguments[i + 1] : ""
        switch arguments[i] {
        case "--crosstalk": crosstalks = value.split(separator: ",").compactMap { Double($0) }
        case "--script": script = value
        case "--style": style = DirectorTuning.Style(rawValue: value) ?? .standard
        default: throw CoordinatorError("unknown option \(arguments[i]); expected --crosstalk DB,... --script FILE --style S")
        }
        i += 2
    }
    let generator = FileManager.default.currentDirectoryPath + "/tools/conversation/make-conversation.py"
    print("director on \(script ?? "tools/conversation/interview.txt"), style \(style.rawValue), noise -45 dBFS")
    for crosstalk in crosstalks {
        let folder = NSTemporaryDirectory() + "dualcam-director-bench-\(getpid())-\(Int(crosstalk))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        make.arguments = [generator] + (script.map { [$0] } ?? []) + ["--out", folder, "--crosstalk-db", "\(crosstalk)"]
        make.standardOutput = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        guard make.terminationStatus == 0 else { throw CoordinatorError("\(generator) failed (run it from the repository, with espeak-ng installed)") }
        let result = try DirectorEvaluation.run(folder: folder, tuning: DirectorTuning(style: style))
        print(String(format: "crosstalk %4.1f dB: ", crosstalk) + result.score.description)
        print(String(format: "  analysis %.3f %% of one core per camera (%.1f s of sound)", result.costPerCamera * 100, result.seconds))
        print("  cuts: " + result.cuts.map { String(format: "%.2f→%@", Double($0.atNanoseconds) / 1e9, $0.shot.description) }.joined(separator: " "))
    }
}
