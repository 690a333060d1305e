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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repository + "/Tests/VividGuest/boot.sh")
        process.arguments = [out, DemoRun.binDirectory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(VividFailure(description: "cannot start boot.sh: \(error)")) }
        process.waitUntilExit()
        let log = (try? String(contentsOfFile: out + ".log", encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            return .failure(VividFailure(description: "vivid guest failed (\(process.terminationStatus)): \(log.suffix(3000))"))
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

    /// "first frame started +0.2 ms from the grid (…)" in the source's description.
    static func alignedStartMilliseconds(_ log: String) -> Double? {
        guard let range = log.range(of: "first frame started ") else { return nil }
        return Double(log[range.upperBound...].prefix { $0 != " " })
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

        /// With no --source the agent records the camera it finds (a node with none
        /// would get the synthetic pattern, as the other end-to-end tests ask for).
        @Test func withNoSourceTheAgentRecordsTheCameraItFinds() throws {
            let log = try VividRun.file("auto.log")
            #expect(try VividRun.status("auto") == 0, "\(log.suffix(2000))")
            #expect(log.contains("no --source: recording the camera at /dev/video0"), "\(log.suffix(2000))")
            #expect(log.contains("source: v4l2 /dev/video0:"), "\(log.suffix(2000))")
            #expect(try VividRun.file("cameras.log").contains("/dev/video0: vivid") )
            #expect(try VividRun.file("cameras.log").contains("[recorded when no --source is given]"))
        }

        @Test(arguments: ["yu12", "yuyv"])
        func recordsEveryFrameWithTheDriversTimestamps(format: String) throws {
            let log = try VividRun.file(format + ".log")
            #expect(try VividRun.status(format) == 0, "\(log.suffix(2000))")
            #expect(log.contains("source: v4l2 /dev/video0: \(format.uppercased()) 320x180 @ 30 fps"), "\(log.suffix(2000))")
            // Started so that its first frame lands on the grid (of the lone node's own
            // clock): vivid's frames follow stream-on, so within a few timer ticks of the
            // emulated guest. Unaligned it would be anywhere within half a frame (16.7 ms).
            let aligned = try #require(VividRun.alignedStartMilliseconds(log), "\(log.suffix(2000))")
            #expect(abs(aligned) <= 3, "first frame \(aligned) ms from the grid")
            let counts = try #require(VividRun.counts(log), "\(log.suffix(2000))")
            // 3 s at 30 fps; a frame the guest lost shows up as dropped, never as missing.
            #expect((88...91).contains(counts.frames + counts.dropped), "\(counts)")
            let movie = try #require(VividRun.movie(log))
            let probe = try MediaProbe.probe(path: movie)
            #expect(probe.frameCount == counts.frames)
            // Every frame sits at its driver timestamp: each file frame's time from the
            // first one is the time between the driver's buffers (the agent's frame log of
            // sequence and stamp, which also holds the buffers before the start instant),
            // to the MP4 time base's rounding. Buffers the file skips are frames the agent
            // lost, and must be counted as dropped; the driver's own sequence gaps too.
            let logged = try VividRun.file(format + ".frames").split(separator: "\n").compactMap { line -> (Int64, Int64)? in
                let fields = line.split(separator: " ")
                guard fields.count == 2, let sequence = Int64(fields[0]), let stamp = Int64(fields[1]) else { return nil }
                return (sequence, stamp)
            }
            let stamps = probe.frameTimestampsNanoseconds
            func match(from first: Int) -> [Int]? {
                var picked = [first]
                var j = first
                for stamp in stamps.dropFirst() {
                    let wanted = stamp - stamps[0]
                    j += 1
                    while j < logged.count, logged[j].1 - logged[first].1 < wanted - 50_000 { j += 1 }
                    guard j < logged.count, abs(logged[j].1 - logged[first].1 - wanted) <= 50_000 else { return nil }
                    picked.append(j)
                }
                return picked
            }
            let picked = stamps.isEmpty ? nil : logged.indices.lazy.compactMap(match).first
            try #require(picked != nil, "file times \(stamps.prefix(8).map { $0 - stamps[0] }) match no run of driver stamps \(logged.prefix(10).map(\.1))")
            let used = picked!
            let skipped = zip(used, used.dropFirst()).map { $1 - $0 - 1 }.reduce(0, +)
            let sequenceGaps = zip(used, used.dropFirst()).map { Int(logged[$1].0 - logged[$0].0) - ($1 - $0) }.reduce(0, +)
            #expect(skipped + sequenceGaps <= counts.dropped,
                    "\(skipped) buffers skipped and \(sequenceGaps) lost by the driver, \(counts.dropped) reported dropped")
            // And the camera runs at 30 fps: over the recording the driver's sequence
            // numbers and its stamps agree within 2 %. (Frame by frame, vivid in the emulated
            // guest stamps on jiffies that run up to 15 ms late, which is the emulator's.)
            let period: Int64 = 33_333_333
            if let first = used.first, let last = used.last, last - first > 30 {
                let frames = Double(logged[last].0 - logged[first].0)
                let mean = Double(logged[last].1 - logged[first].1) / frames
                #expect(abs(mean - Double(period)) < Double(period) * 0.02, "mean step \(mean) ns")
            }
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
