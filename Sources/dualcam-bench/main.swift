// dualcam-bench: prints the project's performance figures (release build only).
//   dualcam-bench [core]    compositor and filters, one thread
//   dualcam-bench net       TLS transport on loopback: clock round trip, segment ingest
//   dualcam-bench capture   dualcam-agent record against the ffmpeg CLI, 1080p30 libx264: CPU per frame, RSS
let which = CommandLine.arguments.dropFirst().first ?? "core"
switch which {
case "core":
    runCoreBenchmarks()
case "net":
    try await runNetBenchmarks()
case "capture":
    try runCaptureBenchmarks()
default:
    print("usage: dualcam-bench [core|net|capture]")
}
