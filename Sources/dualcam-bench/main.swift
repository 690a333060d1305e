// dualcam-bench: prints the project's performance figures (release build only).
//   dualcam-bench [core]    compositor and filters, one thread
//   dualcam-bench net       TLS transport on loopback: clock round trip, segment ingest
//   dualcam-bench capture [rounds]   dualcam-agent record against the ffmpeg CLI, 1080p30 libx264:
//                                    CPU per frame and peak RSS, rounds A/B pairs (default 3)
let which = CommandLine.arguments.dropFirst().first ?? "core"
switch which {
case "core":
    runCoreBenchmarks()
case "net":
    try await runNetBenchmarks()
case "capture":
    try runCaptureBenchmarks(rounds: max(CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 3, 1))
default:
    print("usage: dualcam-bench [core|net|capture [rounds]]")
}
