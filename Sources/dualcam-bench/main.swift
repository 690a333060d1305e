// dualcam-bench: prints the project's performance figures (release build only).
//   dualcam-bench [core]    compositor and filters, one thread
//   dualcam-bench net       TLS transport on loopback: clock round trip, segment ingest
let which = CommandLine.arguments.dropFirst().first ?? "core"
switch which {
case "core":
    runCoreBenchmarks()
case "net":
    try await runNetBenchmarks()
default:
    print("usage: dualcam-bench [core|net]")
}
