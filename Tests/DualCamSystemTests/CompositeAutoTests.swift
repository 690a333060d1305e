import DualCamCore
import DualCamMedia
import Foundation
import Testing
@testable import DualCamCoordinator

/// The live composite's `auto` (issue 19): measured with every camera decoded, and
/// stepped to a faster preset at a keyframe when the composite lags, with a file whose
/// every frame decodes across the switch.
@Suite(.serialized) struct CompositeAutoTests {
    func plan(width: Int = 640, height: Int = 360) -> TakePlan {
        var plan = TakePlan(agents: [], outputDirectory: "/tmp", durationSeconds: nil)
        (plan.width, plan.height) = (width, height)
        plan.layout = LayoutSpec(kind: .grid)
        return plan
    }

    /// Real FFmpeg: each camera's pattern encoded and decoded, composed, encoded per preset.
    @Test func theMeasurementCountsTheDecodingOfEveryCamera() throws {
        MediaLog.setQuiet()
        let one = try CompositeProbe.measure(plan: plan(), cameras: 1)
        let four = try CompositeProbe.measure(plan: plan(), cameras: 4)
        for measured in [one, four] {
            #expect(measured.speeds.first?.preset == "ultrafast")
            #expect(measured.decodeNanoseconds > 0 && measured.composeNanoseconds > 0)
            // What was chosen is what the core's rule says of what was measured.
            #expect(measured.outcome == PresetChoice.choose(measured.speeds, rate: .fps30))
            // The encode alone is faster than the whole composite frame.
            for (alone, whole) in zip(measured.encodeSpeeds, measured.speeds) {
                #expect(alone.framesPerSecond > whole.framesPerSecond, "\(alone) vs \(whole)")
            }
        }
        // Four cameras decode four pictures a frame, on two cores at best: more than one.
        #expect(four.decodeNanoseconds > one.decodeNanoseconds * 3 / 2, "1: \(one.summary); 4: \(four.summary)")
        #expect(four.speeds[0].framesPerSecond < one.speeds[0].framesPerSecond, "1: \(one.summary); 4: \(four.summary)")
        print("COMPOSITE-PROBE 1 camera: \(one.summary)")
        print("COMPOSITE-PROBE 4 cameras: \(four.summary)")
    }

    /// A composite whose decoding takes more than a frame's time (40 ms at 30 fps) at
    /// `veryfast`: at its first keyframe after that (frame 30) it steps, to the fastest
    /// (the decoding alone is over the target), and keeps it; the file is `avc3`, has all
    /// 120 frames one period apart, a keyframe at the switch, and decodes in ffmpeg.
    @Test func aLaggingCompositeStepsFasterAtAKeyframeAndEveryFrameDecodes() throws {
        MediaLog.setQuiet()
        let folder = NSTemporaryDirectory() + "dualcam-composite-auto-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (width, height, rate) = (320, 240, FrameRate.fps30)
        let path = folder + "/combined.mp4"
        let renderer = try CompositeRenderer(
            outputPath: path, streamCount: 1, width: width, height: height, rate: rate, latencyWindowNanoseconds: 2_000_000_000,
            timeline: LayoutTimeline(initial: LayoutSpec(kind: .grid)), filters: ChangeTimeline(initial: FilterSetting(kind: .none)),
            encoder: VideoEncoderSettings(width: width, height: height, rate: rate, preset: "ultrafast", gopFrames: 30, threads: 1),
            tags: MP4Tags(), cameraNames: ["host"])
        let measured = CompositeMeasurement(
            outcome: .fits(preset: "veryfast", speed: 2), speeds: [PresetSpeed(preset: "ultrafast", framesPerSecond: 150),
                                                               PresetSpeed(preset: "superfast", framesPerSecond: 100),
                                                               PresetSpeed(preset: "veryfast", framesPerSecond: 60)],
            decodeNanoseconds: 1_000_000, composeNanoseconds: 500_000, cameras: 1, seconds: 1)
        renderer.usePreset(measured.preset)
        renderer.steering = CompositeSteering(measurement: measured, rate: rate, gopFrames: 30)
        renderer.decodeNanosecondsPerFrame = 40_000_000
        let pattern = SyntheticPattern(width: width, height: height, identity: nil)
        for k in 0..<120 {
            var image = YUV420Image(width: width, height: height)
            pattern.render(frameIndex: Int64(k), code: UInt32(k), into: &image)
            renderer.push(stream: 0, frame: DecodedFrame(image: image, ptsNanoseconds: rate.instant(ofFrame: Int64(k))))
            try renderer.composeReady()
        }
        _ = try renderer.finish(endPresentationNanoseconds: rate.instant(ofFrame: 120))
        let switches = renderer.steering?.switches ?? []
        #expect(switches.map(\.preset) == ["ultrafast"], "\(switches)")
        #expect(switches.first?.presentationNanoseconds == rate.instant(ofFrame: 30))
        #expect(switches.first?.reason.hasPrefix("composite: the encoder needed") == true, "\(switches)")
        #expect(renderer.currentPreset == "ultrafast")

        #expect(try MP4SampleEntry.types(path: path) == ["avc3"])
        let decode = try Self.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.output.isEmpty, "\(decode.output)")
        let probe = try Self.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,flags",
                                                       "-of", "csv=p=0", path])
        let rows = probe.output.split(separator: "\n").map { $0.split(separator: ",") }
        #expect(rows.count == 120)
        let times = rows.compactMap { Double($0[0]) }
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 1.0 / 30) < 0.001, "\(a) → \(b)") }
        #expect(rows.count > 30 && rows[30].count > 1 && rows[30][1].hasPrefix("K"), "frame 30 is not a keyframe")
        // Every frame shows its own instant: the DCTC code drawn into it reads back.
        var k: UInt32 = 0
        try MediaProbe.forEachFrame(path: path) { frame in
            #expect(DCTC.read(frame.image) == k, "frame \(k)")
            k += 1
        }
        #expect(k == 120)
    }

    /// The take stops at 3 s: its last segment (from 1 s, one 2 s segment before) goes at
    /// the fastest preset from its first frame, a keyframe, once.
    @Test func theLastSegmentGoesAtTheFastestPreset() {
        let measured = CompositeMeasurement(outcome: .fits(preset: "faster", speed: 2), speeds: [], decodeNanoseconds: 0,
                                            composeNanoseconds: 0, cameras: 2, seconds: 1)
        var steering = CompositeSteering(measurement: measured, rate: .fps30, gopFrames: 60)
        var switched: [Int64: String] = [:]
        for k in Int64(0)..<90 {
            // Learnt mid-take, as the operator's stop is (a take of set length knows it at once).
            if k == 20 { steering.stop.set(3_000_000_000) }
            if let preset = steering.beforeFrame(index: k, instant: FrameRate.fps30.instant(ofFrame: k)) { switched[k] = preset }
            steering.frameDone(encodeNanoseconds: 5_000_000, fixedNanoseconds: 2_000_000)
        }
        #expect(switched == [30: "ultrafast"])
        #expect(steering.switches.first?.reason.hasPrefix("the take's last segment") == true)
        // A switch for the tail is no sign the measurement was optimistic.
        #expect(!steering.steppedFaster)
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
