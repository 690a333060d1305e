import DualCamCore
import DualCamMedia
import Foundation
import Testing

/// The agent against a real V4L2 driver: vivid, in a QEMU guest booted by
/// tools/vivid-vm/run.sh (these machines have no camera and load no kernel modules).
/// One boot runs Tests/VividGuest/capture.sh; each test checks one part of what it left.
enum VividRun {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static var isX86: Bool {
        #if arch(x86_64)
        true
        #else
        false
        #endif
    }
    static let out = NSTemporaryDirectory() + "dualcam-vivid-\(getpid())"

    /// The guest's results folder, or why the guest did not run.
    static let result: Result<String, VividFailure> = boot()

    private static func boot() -> Result<String, VividFailure> {
        try? FileManager.default.removeItem(atPath: out)
        let agent = DemoRun.binDirectory + "/dualcam-agent"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repository + "/tools/vivid-vm/run.sh")
        process.arguments = ["--out", out, "--timeout", "400", "--file", agent, "--file", "/usr/bin/v4l2-ctl", "--",
                             repository + "/Tests/VividGuest/capture.sh", agent]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(VividFailure(description: "cannot start run.sh: \(error)")) }
        let collected = LineCollector(err.fileHandleForReading)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(VividFailure(description: "vivid guest failed (\(process.terminationStatus)): \(collected.all().suffix(3000))"))
        }
        return .success(out)
    }

    static func file(_ name: String) throws -> String {
        let folder = try result.get()
        return try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
    }

    static func status(_ name: String) throws -> Int? {
        Int(try file(name + ".rc").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// "recorded N frames in S segments, D dropped"
    static func counts(_ log: String) -> (frames: Int, segments: Int, dropped: Int)? {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("recorded ") }) else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : nil
    }

    static func movie(_ log: String) -> String? {
        log.split(separator: "\n").first { $0.hasPrefix("file: /out/") }.map { out + "/" + $0.dropFirst("file: /out/".count) }
    }
}

struct VividFailure: Error, CustomStringConvertible {
    let description: String
}

extension EndToEnd {
    @Suite(.enabled(if: VividRun.isX86, "the vivid guest is an x86-64 kernel"))
    struct VividCaptureTests {
        @Test func camerasListsTheDriversFormatsSizesAndRates() throws {
            #expect(try VividRun.status("cameras") == 0)
            let text = try VividRun.file("cameras.log")
            #expect(text.contains("/dev/video0: vivid"), "\(text)")
            for expected in ["YUYV", "YU12", "NV12", "320x180  @ 60, 50, 40, 30"] {
                #expect(text.contains(expected), "missing \(expected) in:\n\(text)")
            }
        }

        @Test(arguments: ["yu12", "yuyv"])
        func recordsEveryFrameWithTheDriversTimestamps(format: String) throws {
            let log = try VividRun.file(format + ".log")
            #expect(try VividRun.status(format) == 0, "\(log.suffix(2000))")
            #expect(log.contains("source: v4l2 /dev/video0: \(format.uppercased()) 320x180 @ 30 fps"), "\(log.suffix(2000))")
            let counts = try #require(VividRun.counts(log), "\(log.suffix(2000))")
            // 3 s at 30 fps; a frame the guest lost shows up as dropped, never as missing.
            #expect((88...91).contains(counts.frames + counts.dropped), "\(counts)")
            let movie = try #require(VividRun.movie(log))
            let probe = try MediaProbe.probe(path: movie)
            #expect(probe.frameCount == counts.frames)
            // Every frame sits at its driver timestamp: the file's steps are the steps
            // between consecutive buffers the driver delivered (the agent's frame log,
            // which also holds the buffers before the start instant), to the MP4 time
            // base's rounding.
            let driver = try VividRun.file(format + ".frames").split(separator: "\n").compactMap { line -> Int64? in
                let fields = line.split(separator: " ")
                return fields.count == 2 ? Int64(fields[1]) : nil
            }
            let stamps = probe.frameTimestampsNanoseconds
            let fileSteps = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
            let driverSteps = zip(driver, driver.dropFirst()).map { $1 - $0 }
            let aligned = driverSteps.count >= fileSteps.count ? (0...(driverSteps.count - fileSteps.count)).first { skip in
                zip(fileSteps, driverSteps.dropFirst(skip)).allSatisfy { abs($0 - $1) <= 50_000 }
            } : nil
            #expect(aligned != nil, "file steps \(fileSteps.prefix(8)) match no run of driver steps \(driverSteps.prefix(10))")
            // And the camera's cadence is 30 fps: steps are whole periods, a lost frame a
            // double step counted as dropped. vivid stamps on the emulated guest's 4 ms
            // jiffies, late now and then, so a step may be off by up to a third of a period;
            // over the whole recording the rate is within 2 %.
            let period: Int64 = 33_333_333
            var gaps = 0
            for (a, b) in zip(stamps, stamps.dropFirst()) {
                let periods = ((b - a) + period / 2) / period
                #expect(periods >= 1 && abs((b - a) - periods * period) < period / 3, "step \(b - a) ns")
                gaps += Int(max(periods - 1, 0))
            }
            if let first = stamps.first, let last = stamps.last, stamps.count > 30 {
                let mean = Double(last - first) / Double(stamps.count - 1 + gaps)
                #expect(abs(mean - Double(period)) < Double(period) * 0.02, "mean step \(mean) ns")
            }
            #expect(gaps <= counts.dropped, "\(gaps) missing frame slots, \(counts.dropped) reported dropped")
            // The picture came through the conversion: vivid's colour bars, not a flat frame.
            var lumaLevels = Set<UInt8>()
            try MediaProbe.forEachFrame(path: movie) { frame in
                if lumaLevels.isEmpty {
                    for x in stride(from: 0, to: frame.image.width, by: 8) { lumaLevels.insert(frame.image.luma(x, 60)) }
                }
            }
            #expect(lumaLevels.count >= 5, "luma levels across row 60: \(lumaLevels.sorted())")
        }

        @Test func anUnpluggedCameraEndsWithAClearErrorAndKeepsItsSegments() throws {
            let log = try VividRun.file("unplug.log")
            #expect(try VividRun.status("unplug") == 1, "\(log.suffix(2000))")
            #expect(log.contains("disconnected") && log.contains("segments recorded so far are kept"), "\(log.suffix(2000))")
            let counts = try #require(VividRun.counts(log), "\(log.suffix(2000))")
            #expect(counts.segments >= 1 && counts.frames >= 30, "\(counts)")
            let folder = try VividRun.result.get() + "/unplug/segments"
            let session = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/" + session).filter { $0.hasSuffix(".ts") }
            #expect(files.count == counts.segments, "\(files)")
            var total = 0
            for file in files { total += try MediaProbe.probe(path: folder + "/" + session + "/" + file).frameCount }
            #expect(total == counts.frames)
        }
    }
}
