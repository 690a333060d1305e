import DualCamCore
import Foundation
import Glibc

/// `dualcam-coordinator recompose` against its peer, the ffmpeg CLI re-rendering the same
/// picture-in-picture from the same per-camera files (`-filter_complex` scale + overlay)
/// with the same libx264 settings, alternately, each round on the same inputs. Target:
/// recompose wall time ≤ 0.95 × ffmpeg's (issue 37; an earlier issue asked 0.8, which
/// this machine's two cores cannot give: MEASUREMENTS.md). Wall and CPU time come from each child's
/// rusage (wait4). Needs the release `dualcam-coordinator` (and `dualcam-agent` to record
/// a session) next to this executable, and ffmpeg and ffprobe on the PATH.
///
/// Arguments: `[--session DIR] [--rounds N] [--duration S] [--preset P] [--crf Q] [--tune T] [--levelled]`
/// (encoder settings default to the session's). Without
/// `--session` a 1280x720 demo session is recorded first. The session's per-camera files
/// and manifest are copied to a scratch folder, so the session itself is not touched.
private let targetRatio = 0.95

func runRecomposeBenchmarks(arguments: [String]) throws {
    func value(_ name: String) -> String? {
        arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[$0 + 1] : nil }
    }
    let rounds = max(value("--rounds").flatMap { Int($0) } ?? 3, 1)
    let tune = value("--tune")
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let bin = (exe as NSString).deletingLastPathComponent
    let coordinator = bin + "/dualcam-coordinator"
    guard FileManager.default.isExecutableFile(atPath: coordinator) else {
        print("no \(coordinator): build it first (swift build -c release --product dualcam-coordinator, same --scratch-path)")
        return
    }
    let root = NSTemporaryDirectory() + "dualcam-bench-recompose-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: root) }
    signal(SIGPIPE, SIG_IGN)

    var source = value("--session")
    if source == nil {
        let seconds = value("--duration") ?? "10"
        print("Recording a \(seconds) s 1280x720 demo session to recompose…")
        let demo = try ChildRun([coordinator, "demo", "--duration", seconds, "--out", root + "/recorded",
                                 "--state", root + "/state"], stdin: nil, dir: root + "/demo-run")
        guard demo.succeeded else {
            print("FAIL  the demo did not record: exit \(demo.status); \(demo.stderr.suffix(600))")
            return
        }
        source = demo.stdout.split(separator: "\n").first { $0.hasPrefix("Session folder: ") }.map { String($0.dropFirst(16)) }
    }
    guard let source, let session = try? BenchSession(copying: source, to: root + "/work") else {
        print("FAIL  \(source ?? "?") is not a finished session folder (manifest.json and the per-camera files)")
        return
    }
    let expected = session.expectedFrames
    let preset = value("--preset") ?? session.preset
    let crf = value("--crf").flatMap { Int($0) } ?? session.crf
    let out = root + "/peer.mp4"
    // --replace: each round rewrites the one combined file the figures are read from,
    // as the peer rewrites its output, instead of adding a render beside it.
    var ours = [coordinator, "recompose", session.directory, "--layout", "pip", "--preset", preset, "--crf", "\(crf)", "--replace"]
    var peer = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + session.cameraFiles.flatMap { ["-i", $0] }
        + ["-filter_complex", session.pipFilterGraph() + (session.hasSound ? ";" + session.mixFilterGraph() : ""),
           "-map", "[out]", "-c:v", "libx264", "-preset", preset,
           "-crf", "\(crf)", "-g", "\(session.gopFrames)", "-keyint_min", "\(session.gopFrames)",
           "-sc_threshold", "0", "-bf", "0", "-pix_fmt", "yuv420p"]
    // An equivalent file has the mixed sound too (AAC at 128 kbit/s, as recompose writes).
    if session.hasSound {
        peer += ["-map", "[aout]", "-c:a", "aac", "-b:a", "128k"]
        // The same sound work on both sides: the peer mixes and encodes, so recompose
        // does not level the mix either (its default -16 LUFS measures and limits it:
        // `--levelled` keeps that, to see what it costs).
        if !arguments.contains("--levelled") { ours += ["--loudness", "off"] }
    }
    if let tune {
        ours += ["--tune", tune]
        peer += ["-tune", tune]
    }
    peer += ["-movflags", "+faststart", out]

    print("Recompose benchmark: \(session.cameraFiles.count) cameras \(session.width)x\(session.height) at \(session.fps) fps, "
          + "\(expected) frames, pip, libx264 \(preset) crf \(crf), GOP \(session.gopFrames), "
          + "tune \(tune ?? "none"); runs A B alternating \(rounds) times, "
          + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
    print("  A  " + shellLine(ours))
    print("  B  " + shellLine(peer))
    let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    print("  load average before the runs: \(load?.joined(separator: " ") ?? "?")")
    print("  " + pad("run", -12) + pad("wall s", 8) + pad("CPU s", 8) + pad("fps", 8) + pad("max RSS", 10)
          + pad("frames", 8) + pad("video kB", 10))
    var ourRuns: [ChildRun] = [], peerRuns: [ChildRun] = []
    var allCounted = true
    for round in 1...rounds {
        for isOurs in [true, false] {
            let dir = root + (isOurs ? "/A\(round)" : "/B\(round)")
            let run = try ChildRun(isOurs ? ours : peer, stdin: nil, dir: dir)
            let video = try probeVideo(isOurs ? session.combinedFile : out, dir: dir)
            let counted = run.succeeded && video.packets == expected
            allCounted = allCounted && counted
            print("  " + pad(isOurs ? "A\(round) ours" : "B\(round) ffmpeg", -12)
                  + String(format: "%8.2f%8.2f%8.1f", run.wallSeconds, run.cpuSeconds, Double(expected) / run.wallSeconds)
                  + pad(megabytes(run.maxRSSKiB), 10) + pad("\(video.packets)", 8) + pad("\(video.bytes / 1000)", 10)
                  + (counted ? "" : "  WRONG: exit \(run.status), \(run.stderr.suffix(400))"))
            if isOurs { ourRuns.append(run) } else { peerRuns.append(run) }
        }
    }
    let wallRatios = zip(ourRuns, peerRuns).map { $0.wallSeconds / $1.wallSeconds }
    let cpuRatios = zip(ourRuns, peerRuns).map { $0.cpuSeconds / $1.cpuSeconds }
    let ratio = median(wallRatios)
    print(String(format: "  median wall: ours %.2f s, ffmpeg %.2f s; median CPU: ours %.2f s, ffmpeg %.2f s",
                 median(ourRuns.map(\.wallSeconds)), median(peerRuns.map(\.wallSeconds)),
                 median(ourRuns.map(\.cpuSeconds)), median(peerRuns.map(\.cpuSeconds))))
    print("  wall ours / ffmpeg by round: " + wallRatios.map { String(format: "%.3f", $0) }.joined(separator: ", ")
          + "; CPU: " + cpuRatios.map { String(format: "%.3f", $0) }.joined(separator: ", "))
    if !allCounted { print("  FAIL  a run did not exit cleanly with all \(expected) frames: the figures are not comparable") }
    print(String(format: "  %@  wall time ours / ffmpeg = %.3f (median of rounds)   target ≤ %.2f",
                 (allCounted && ratio <= targetRatio ? "PASS" : "FAIL") as NSString, ratio, targetRatio))
}

/// The copy of a session the benchmark works on, and what its manifest says.
private struct BenchSession {
    let directory: String
    let cameraFiles: [String]
    let combinedFile: String
    let width: Int, height: Int
    let fps: String
    let preset: String
    let crf: Int
    let gopFrames: Int
    let expectedFrames: Int
    /// The cameras recorded sound, which recompose mixes into the combined file again.
    let hasSound: Bool

    init(copying source: String, to scratch: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source + "/manifest.json"))
        guard let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let settings = manifest["settings"] as? [String: Any], let cameras = manifest["cameras"] as? [[String: Any]],
              let composite = manifest["composite"] as? [String: Any], let combined = composite["file"] as? String,
              let width = settings["width"] as? Int, let height = settings["height"] as? Int,
              let fps = settings["fps"] as? String, let rate = FrameRate(parsing: fps),
              let duration = manifest["durationSeconds"] as? Double else {
            throw SpawnError("\(source)/manifest.json lacks what the benchmark needs")
        }
        let directory = scratch + "/" + (source as NSString).lastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let names = cameras.compactMap { $0["file"] as? String }
        for name in names + ["manifest.json"] {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: directory + "/" + name)
        }
        self.directory = directory
        cameraFiles = names.map { directory + "/" + $0 }
        combinedFile = directory + "/" + combined
        self.width = width
        self.height = height
        self.fps = fps
        // A session recorded with `--preset auto` is re-rendered at recompose's own default.
        let recorded = settings["preset"] as? String ?? "veryfast"
        preset = recorded == "auto" ? "veryfast" : recorded
        crf = settings["crf"] as? Int ?? 23
        let segment = settings["segmentMilliseconds"] as? Int ?? 2000
        gopFrames = max(Int(Int64(segment) * rate.numerator / (1000 * rate.denominator)), 1)
        expectedFrames = Int(rate.firstFrame(atOrAfter: Int64((duration * 1e9).rounded())))
        hasSound = composite["mix"] != nil
    }

    /// The cameras' sound summed at 0 dB each, as recompose's default mix does.
    func mixFilterGraph() -> String {
        cameraFiles.indices.map { "[\($0):a]" }.joined() + "amix=inputs=\(cameraFiles.count):normalize=0:duration=longest[aout]"
    }

    /// The pip layout in ffmpeg's terms, as one would write it by hand: each camera
    /// cover-cropped and scaled to its slot (neither where it already fits), overlaid in
    /// drawing order; the first slot is the base when it fills the frame, as in pip.
    func pipFilterGraph() -> String {
        let slots = LayoutGeometry.slots(for: LayoutSpec(kind: .pip), outputWidth: width, outputHeight: height,
                                         streamCount: cameraFiles.count)
        var graph: [String] = []
        var base = "[bg]"
        for (n, slot) in slots.enumerated() {
            let r = slot.rect
            let crop = LayoutGeometry.coverCrop(sourceWidth: width, sourceHeight: height, slotWidth: r.width, slotHeight: r.height)
            var steps: [String] = []
            if crop != PixelRect(x: 0, y: 0, width: width, height: height) {
                steps.append("crop=\(crop.width):\(crop.height):\(crop.x):\(crop.y)")
            }
            if r.width != width || r.height != height { steps.append("scale=\(r.width):\(r.height)") }
            let picture = steps.isEmpty ? "[\(slot.stream):v]" : "[s\(n)]"
            if !steps.isEmpty { graph.append("[\(slot.stream):v]" + steps.joined(separator: ",") + picture) }
            let target = n == slots.count - 1 ? "[out]" : "[b\(n)]"
            if n == 0 && r == PixelRect(x: 0, y: 0, width: width, height: height) {
                base = picture
                if slots.count == 1 { graph.append(picture + "null[out]") }
                continue
            }
            if n == 0 { graph.append("color=black:s=\(width)x\(height):r=\(fps)[bg]") }
            graph.append(base + picture + "overlay=\(r.x):\(r.y):shortest=1" + target)
            base = target
        }
        return graph.joined(separator: ";")
    }
}
