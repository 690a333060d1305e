import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// The frame-sync core seen from outside: with the guest agent's clock 37 ms off and
    /// running 80 ppm fast, both halves of every frame of a split-screen composite show
    /// DCTC codes within 0.5 ms of each other, and the manifest reports the pairing.
    @Suite struct SplitScreenSyncTests {
        @Test func halvesAgreeDespiteAWrongGuestClock() throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-split-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let (width, height, seconds) = (640, 360, 3)
            let run = try DemoRun.run(["demo", "--duration", "\(seconds)", "--out", out, "--state", out + "/state",
                                       "--size", "\(width)x\(height)", "--layout", "split-horizontal",
                                       "--guest-clock-offset-ms", "37", "--guest-clock-skew-ppm", "80"])
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            let combined = try #require(run.mp4Files.first { $0.contains("DualCam_Combined_") })

            let slots = LayoutGeometry.slots(for: LayoutSpec(kind: .splitHorizontal), outputWidth: width,
                                             outputHeight: height, streamCount: 2)
            let host = try #require(slots.first { $0.stream == 0 })
            let guest = try #require(slots.first { $0.stream == 1 })
            var frames = 0
            var worst: Int64 = 0
            try MediaProbe.forEachFrame(path: combined) { frame in
                let h = DCTC.read(frame.image, slot: host.rect, sourceWidth: width, sourceHeight: height)
                let g = DCTC.read(frame.image, slot: guest.rect, sourceWidth: width, sourceHeight: height)
                let difference = abs(DCTC.differenceNanoseconds(h, g))
                worst = max(worst, difference)
                #expect(difference <= 500_000, "frame \(frames): host \(h) guest \(g)")
                frames += 1
            }
            #expect(frames == seconds * 30)
            #expect(worst <= 500_000)

            let manifestPath = (combined as NSString).deletingLastPathComponent + "/manifest.json"
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any]
            let composite = try #require(manifest?["composite"] as? [String: Any])
            let spread = try #require(composite["pairSpread"] as? [String: Any])
            let p99 = try #require(spread["p99Microseconds"] as? Double)
            #expect(p99 <= 500, "manifest pair spread p99 \(p99) µs")
            #expect((composite["layout"] as? String)?.hasPrefix("split-horizontal") == true)
        }
    }
}
