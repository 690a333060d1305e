import DualCamCore
import DualCamMedia
import Foundation
import Glibc

/// `dualcam-bench presets`: how many frames a second each libx264 preset sustains on ONE
/// core, at the agent's settings (zerolatency, CRF 23, a keyframe every 2 s), on the
/// synthetic source's pictures. Issue 19's `auto` picks a preset by what the node can carry;
/// this table is what it would find here, per core, and what a slower node can expect.
///
/// Ours: the project's VideoEncoder with one thread, timed by the calling thread's CPU
/// clock around the encode calls only (with one thread and zerolatency x264 has no thread
/// of its own, which the "other threads" column checks), so reading the frames and the
/// machine's load stay out of the figure. Peer: `ffmpeg -threads 1` with the same x264
/// settings on the same raw file, its CPU from wait4's rusage (which includes reading the
/// raw frames: a little slower on the fastest presets).
func runPresetBenchmarks(arguments: [String]) throws {
    var frames = 150
    var sizes = [(1280, 720), (1920, 1080)]
    var presets = PresetChoice.ladder
    var withPeer = true
    var i = 0
    while i < arguments.count {
        let value = i + 1 < arguments.count ? arguments[i + 1] : ""
        switch arguments[i] {
        case "--frames": frames = max(Int(value) ?? frames, 10); i += 1
        case "--sizes":
            sizes = value.split(separator: ",").compactMap { text in
                let p = text.split(separator: "x").compactMap { Int($0) }
                return p.count == 2 ? (p[0], p[1]) : nil
            }
            i += 1
        case "--presets": presets = value.split(separator: ",").map(String.init); i += 1
        case "--no-peer": withPeer = false
        default: throw SpawnError("unknown argument \(arguments[i]); usage: presets [--frames N] [--sizes WxH,…] [--presets P,…] [--no-peer]")
        }
        i += 1
    }
    signal(SIGPIPE, SIG_IGN)
    let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    print("libx264 presets on one core: \(frames) synthetic frames at 30 fps, tune zerolatency, crf 23, keyframe every 60 frames, "
          + "threads 1; \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(load)")
    print("  fps = frames / CPU seconds of the encoding (what one core sustains if it does nothing else)")
    print("  " + pad("size", -11) + pad("preset", -11) + pad("ours fps", 9) + pad("ms/frame", 9) + pad("other thr", 10)
          + pad("kB", 8) + pad("ffmpeg fps", 11) + pad("ms/frame", 9) + pad("kB", 8) + pad("real time", 10))
    for (width, height) in sizes {
        let raw = (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
            + "/dualcam-bench-presets-\(getpid())-\(width)x\(height).yuv"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        _ = try renderFrames(width: width, height: height, count: frames, to: raw)
        for preset in presets {
            let ours = try encodeOnOneThread(raw: raw, width: width, height: height, frames: frames, preset: preset)
            var row = "  " + pad("\(width)x\(height)", -11) + pad(preset, -11)
                + String(format: "%9.1f%9.2f%10.2f", ours.fps, 1000 / ours.fps, ours.otherThreadsSeconds)
                + pad("\(ours.bytes / 1000)", 8)
            var slowest = ours.fps
            if withPeer {
                let peer = try ffmpegOnOneThread(raw: raw, width: width, height: height, frames: frames, preset: preset)
                row += String(format: "%11.1f%9.2f", peer.fps, 1000 / peer.fps) + pad("\(peer.bytes / 1000)", 8)
                slowest = min(slowest, peer.fps)
            }
            // Real time at 30 fps on one core, and the 1.5× headroom `auto` asks for.
            row += pad(slowest >= 45 ? "1.5×" : slowest >= 30 ? "yes" : "no", 10)
            print(row)
        }
    }
}

private struct PresetRun {
    var fps: Double
    var bytes: Int
    var otherThreadsSeconds = 0.0
}

private func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// The frames are read back from the raw file one at a time (into one reused picture),
/// so the bench holds one picture, not the whole clip.
private func encodeOnOneThread(raw: String, width: Int, height: Int, frames: Int, preset: String) throws -> PresetRun {
    let settings = VideoEncoderSettings(encoder: "libx264", width: width, height: height, rate: .fps30, preset: preset,
                                        tune: "zerolatency", crf: 23, gopFrames: 60, threads: 1)
    let fd = open(raw, O_RDONLY)
    guard fd >= 0 else { throw SpawnError("cannot open \(raw)") }
    defer { close(fd) }
    var image = YUV420Image(width: width, height: height)
    var encodeSeconds = 0.0, bytes = 0
    let processBefore = processCPUSeconds()
    var readingSeconds = 0.0
    // Opening x264 (tens of ms) is a take's cost, not a frame's: left out of the rate.
    let openedAt = threadCPUSeconds()
    let encoder = try VideoEncoder(settings: settings)
    readingSeconds += threadCPUSeconds() - openedAt
    for k in 0..<frames {
        let readAt = threadCPUSeconds()
        for plane in 0..<3 {
            let ok: Bool
            switch plane {
            case 0: ok = image.y.withUnsafeMutableBytes { readAll(fd, $0) }
            case 1: ok = image.cb.withUnsafeMutableBytes { readAll(fd, $0) }
            default: ok = image.cr.withUnsafeMutableBytes { readAll(fd, $0) }
            }
            guard ok else { throw SpawnError("short read in \(raw) at frame \(k)") }
        }
        let start = threadCPUSeconds()
        readingSeconds += start - readAt
        let packets = try encoder.encode(image, ptsNanoseconds: FrameRate.fps30.instant(ofFrame: Int64(k)),
                                         forceKeyframe: k % 60 == 0)
        encodeSeconds += threadCPUSeconds() - start
        bytes += packets.reduce(0) { $0 + $1.data.count }
    }
    let start = threadCPUSeconds()
    bytes += try encoder.flush().reduce(0) { $0 + $1.data.count }
    encodeSeconds += threadCPUSeconds() - start
    let other = processCPUSeconds() - processBefore - encodeSeconds - readingSeconds
    return PresetRun(fps: Double(frames) / encodeSeconds, bytes: bytes, otherThreadsSeconds: max(other, 0))
}

private func ffmpegOnOneThread(raw: String, width: Int, height: Int, frames: Int, preset: String) throws -> PresetRun {
    let dir = NSTemporaryDirectory() + "dualcam-bench-presets-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let argv = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-threads", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p",
                "-s", "\(width)x\(height)", "-r", "30", "-i", raw, "-threads", "1", "-c:v", "libx264", "-preset", preset,
                "-tune", "zerolatency", "-crf", "23", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-bf", "0",
                "-f", "h264", dir + "/out.h264"]
    let run = try ChildRun(argv, stdin: nil, dir: dir)
    guard run.succeeded else { throw SpawnError("ffmpeg failed (\(run.status)): \(run.stderr.suffix(300))") }
    let size = ((try? FileManager.default.attributesOfItem(atPath: dir + "/out.h264"))?[.size] as? Int) ?? 0
    return PresetRun(fps: Double(frames) / run.cpuSeconds, bytes: size)
}

private func readAll(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
    var offset = 0
    while offset < buffer.count {
        let n = read(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        offset += n
    }
    return true
}
