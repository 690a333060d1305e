import DualCamCore
import DualCamMedia
import Foundation

/// What the live preview adds to an agent that records: the recording's encode of N
/// 1080p30 frames (the agent's settings: libx264 veryfast, zerolatency, CRF 23, its own
/// threads) against the preview's work on the same frames (cover-crop scale to 640x360,
/// then x264 ultrafast baseline at 1 Mbit/s, one thread), both as process CPU time.
/// Goal (issue 15): the preview ≤ 15 % of the recording's encode.
func runPreviewBenchmarks(arguments: [String]) throws {
    let frames = Int(arguments.first ?? "") ?? 300
    let (width, height) = (1920, 1080)
    var pictures: [YUV420Image] = []
    for i in 0..<30 {
        var image = YUV420Image(width: width, height: height)
        SyntheticPicture.render(frameIndex: Int64(i), into: &image)
        pictures.append(image)
    }
    let period = FrameRate.fps30.periodNanoseconds

    let record = try VideoEncoder(settings: VideoEncoderSettings(width: width, height: height, rate: .fps30,
                                                                  gopFrames: 60))
    let recordCPU = try cpuSeconds {
        for i in 0..<frames {
            _ = try record.encode(pictures[i % pictures.count], ptsNanoseconds: Int64(i) * period, forceKeyframe: i % 60 == 0)
        }
        _ = try record.flush()
    }

    func preview(fps: Int) throws -> Double {
        let scaler = SwsScaler()
        let encoder = try VideoEncoder(settings: .preview(width: 640, height: 360, fps: fps, bitrate: 1_000_000))
        let crop = LayoutGeometry.coverCrop(sourceWidth: width, sourceHeight: height, slotWidth: 640, slotHeight: 360)
        let step = 30 / fps
        return try cpuSeconds {
            for i in stride(from: 0, to: frames, by: step) {
                let small = scaler.scale(pictures[i % pictures.count], crop: crop, toWidth: 640, height: 360)
                _ = try encoder.encode(small, ptsNanoseconds: Int64(i) * period, forceKeyframe: false)
            }
        }
    }
    let preview30 = try preview(fps: 30)
    let preview15 = try preview(fps: 15)

    print("preview cost against the recording's encode, \(frames) frames of 1920x1080 at 30 fps (process CPU time)")
    func row(_ label: String, _ seconds: Double) {
        let share = seconds / recordCPU * 100
        print(String(format: "  %-52@ %7.2f s  %6.2f ms/frame  %5.1f %%", label as NSString, seconds,
                     seconds * 1000 / Double(frames), share))
    }
    row("recording: libx264 veryfast CRF 23, 1080p", recordCPU)
    row("preview 640x360 at 30 fps: scale + ultrafast baseline", preview30)
    row("preview 640x360 at 15 fps", preview15)
    let verdict = preview30 / recordCPU <= 0.15 ? "PASS" : "FAIL"
    print("goal: preview at 30 fps ≤ 15 % of the recording's encode: \(verdict)")
}

private func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    let start = now()
    try body()
    return now() - start
}
