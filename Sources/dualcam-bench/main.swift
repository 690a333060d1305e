// dualcam-bench: prints the project's performance figures (release build only).
//   dualcam-bench [core]    compositor and filters, one thread
let which = CommandLine.arguments.dropFirst().first ?? "core"
switch which {
case "core":
    runCoreBenchmarks()
default:
    print("usage: dualcam-bench [core]")
}
