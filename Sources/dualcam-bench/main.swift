// dualcam-bench: prints the project's performance figures (release build only).
//   dualcam-bench [core]    compositor and filters, one thread
//   dualcam-bench net       TLS transport on loopback: clock round trip, segment ingest
//   dualcam-bench capture [rounds]   dualcam-agent record against the ffmpeg CLI, 1080p30 libx264:
//                                    CPU per frame and peak RSS, rounds A/B pairs (default 3), and the
//                                    agent again with digital zoom 2× (Z) against A
//   dualcam-bench recompose [--session DIR] [--rounds N] [--duration S] [--preset P] [--crf Q] [--tune T]
//                                    dualcam-coordinator recompose against the ffmpeg CLI (scale + overlay),
//                                    same inputs and libx264 settings: wall and CPU time, ratio
//   dualcam-bench preview [frames]   the live preview's CPU (scale + encode to 640x360) against the
//                                    recording's 1080p30 encode on the same frames
//   dualcam-bench presets [--frames N] [--sizes WxH,…] [--presets P,…] [--no-peer]
//                                    fps each libx264 preset sustains on one core (threads 1), ours
//                                    against `ffmpeg -threads 1` on the same raw synthetic frames
//   dualcam-bench avsync FILE... [--layout SPEC --streams N]
//                                    A/V offset of synthetic-source files: tone-burst onsets against
//                                    DCTC second crossings (a composite read in stream 0's slot)
//   dualcam-bench director [--crosstalk DB,...] [--script FILE] [--style S]
//                                    the director on a scripted espeak-ng conversation: share of speaking
//                                    time the speaker is shown, cut delays, cuts on coughs, CPU per camera
//   dualcam-bench import [--minutes M] [--accuracy-minutes A]
//                                    another recorder's file placed by its sound: offset and drift errors
//                                    on A-minute files (default 10), and the time for an M-minute 48 kHz
//                                    stereo file (default 60) beside the ffmpeg CLI decoding it
//   dualcam-bench start-phase [--device D] [--starts N] [--size WxH] [--fps F]
//                                    a V4L2 camera's first-frame phase against the grid, started as it comes
//                                    and started aligned (tools/bench/vivid-start-phase.sh runs it on vivid)
//   dualcam-bench clock-replay FILE... [--same-clock]
//                                    an agent's clock log (--clock-log) through its estimator again;
//                                    --same-clock: one kernel clock, so the true error is known
let which = CommandLine.arguments.dropFirst().first ?? "core"
switch which {
case "core":
    runCoreBenchmarks()
case "net":
    try await runNetBenchmarks()
case "capture":
    try runCaptureBenchmarks(rounds: max(CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 3, 1))
case "recompose":
    try runRecomposeBenchmarks(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "preview":
    try runPreviewBenchmarks(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "presets":
    try runPresetBenchmarks(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "avsync":
    try runAVSyncMeasurement(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "director":
    try runDirectorBenchmarks(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "import":
    try runImportBenchmarks(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "start-phase":
    try runStartPhaseMeasurement(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "clock-replay":
    try runClockReplay(arguments: Array(CommandLine.arguments.dropFirst(2)))
default:
    print("usage: dualcam-bench [core|net|clock-replay FILE... [--same-clock]|capture [rounds]|preview [frames]|presets [--frames N] [--sizes WxH,…] [--presets P,…] [--no-peer]|avsync FILE... [--layout SPEC --streams N]|director [--crosstalk DB,...] [--script FILE] [--style S]|import [--minutes M] [--accuracy-minutes A]|start-phase [--device D] [--starts N] [--size WxH] [--fps F]|recompose [--session DIR] [--rounds N] [--duration S] [--preset P] [--crf Q] [--tune T]]")
}
