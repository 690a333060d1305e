import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// The walking skeleton end to end: two agent processes, mutual TLS on loopback, clock
    /// sync, segments, and the three files, checked frame by frame through libavformat.
    @Suite struct DemoSessionTests {
        static let seconds = 3
        static let fps = 30
        static let width = 640
        static let height = 360

        @Test func demoRecordsThreeFilesInSync() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try DemoRun.run(["demo", "--duration", "\(Self.seconds)", "--out", out, "--state", out + "/coordinator-state",
                                       "--size", "\(Self.width)x\(Self.height)", "--fps", "\(Self.fps)"])
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            // avahi-daemon runs under the suite (deploy/test.sh), so the demo must have
            // found both agents through it rather than by their loopback ports.
            #expect(run.stderr.components(separatedBy: "through mDNS").count - 1 == 2, "\(run.stderr)")
            let files = run.mp4Files
            try #require(files.count == 3, "expected three files, got: \(run.stdout)")
            let host = try #require(files.first { ($0 as NSString).lastPathComponent.hasPrefix("DualCam_Host_") })
            let guest = try #require(files.first { ($0 as NSString).lastPathComponent.hasPrefix("DualCam_Guest_") })
            let combined = try #require(files.first { ($0 as NSString).lastPathComponent.hasPrefix("DualCam_Combined_") })
            #expect(FileManager.default.fileExists(atPath: (host as NSString).deletingLastPathComponent + "/manifest.json"))

            let frames = Self.seconds * Self.fps
            let period = 1.0 / Double(Self.fps)
            for file in [host, guest, combined] {
                let probe = try MediaProbe.probe(path: file)
                #expect(probe.codecName == "h264", "\(file)")
                #expect(probe.width == Self.width && probe.height == Self.height, "\(file)")
                #expect(probe.frameCount == frames, "\(file): \(probe.frameCount) frames")
                #expect(abs(probe.durationSeconds - Double(Self.seconds)) <= period, "\(file): \(probe.durationSeconds) s")
                let ts = probe.frameTimestampsSeconds
                // Each frame at its offset from T0: the grid of a genlocked camera.
                #expect((ts.first ?? -1) >= 0 && (ts.first ?? 1) < period, "\(file): first pts \(ts.first ?? -1)")
                for (a, b) in zip(ts, ts.dropFirst()) {
                    #expect(abs((b - a) - period) < 0.002, "\(file): step \(b - a) s")
                }
            }

            // Same frame index, same true capture instant: the DCTC codes of host and guest
            // (and of the composite's large picture, the host) agree to within 0.5 ms.
            let hostCodes = try Self.codes(host)
            let guestCodes = try Self.codes(guest)
            let combinedCodes = try Self.codes(combined)
            #expect(hostCodes.count == frames && guestCodes.count == frames && combinedCodes.count == frames)
            for (i, (h, g)) in zip(hostCodes, guestCodes).enumerated() {
                #expect(abs(DCTC.differenceNanoseconds(h, g)) <= 500_000, "frame \(i): host \(h) guest \(g)")
            }
            for (i, (h, c)) in zip(hostCodes, combinedCodes).enumerated() {
                #expect(h == c, "frame \(i): host \(h) combined \(c)")
            }
            // Successive codes advance by one frame period (33.3 ms = 333 units ± 1).
            for (a, b) in zip(hostCodes, hostCodes.dropFirst()) {
                #expect(abs(DCTC.differenceNanoseconds(b, a) - 33_333_333) <= 100_000)
            }
        }

        static func codes(_ path: String) throws -> [UInt32] {
            var codes: [UInt32] = []
            try MediaProbe.forEachFrame(path: path) { frame in codes.append(DCTC.read(frame.image)) }
            return codes
        }
    }
}
