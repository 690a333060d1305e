import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// The frame-sync core seen from outside: with the guest agent's clock 37 ms off and
    /// running 80 ppm fast, both halves of every frame of a split-screen composite show
    /// DCTC codes within 0.5 ms of each other, and the manifest reports the pairing. The
    /// same session recomposed in `equal` (each picture fitted whole, with bars) reads the
    /// same codes where the core's geometry says the pictures now are.
    @Suite struct SplitScreenSyncTests {
        /// A demo of `seconds` at 640x360 in split-horizontal into a folder of its own
        /// (removed when `body` returns), and its combined file.
        static func splitDemo(_ name: String, seconds: Int, _ arguments: [String], body: (_ combined: String) throws -> Void) throws {
            let out = NSTemporaryDirectory() + "dualcam-e2e-\(name)-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try DemoRun.run(["demo", "--duration", "\(seconds)", "--out", out, "--state", out + "/state",
                                       "--size", "640x360", "--layout", "split-horizontal"] + arguments)
            try #require(run.exitCode == 0, "demo failed: \(run.stderr.suffix(3000))")
            try body(try #require(run.mp4Files.first { $0.contains("DualCam_Combined_") }))
        }

        @Test func halvesAgreeDespiteAWrongGuestClock() throws {
            try Self.splitDemo("split", seconds: 3, ["--guest-clock-offset-ms", "37", "--guest-clock-skew-ppm", "80"]) {
                try Self.halvesAgree(combined: $0, width: 640, height: 360, seconds: 3)
            }
        }

        static func halvesAgree(combined: String, width: Int, height: Int, seconds: Int) throws {
            let split = CompositeCodes(LayoutSpec(kind: .splitHorizontal), outputWidth: width, outputHeight: height,
                                       sourceWidth: width, sourceHeight: height)
            var live: [[UInt32]] = []
            var worst: Int64 = 0
            try MediaProbe.forEachFrame(path: combined) { frame in
                let codes = split.read(frame.image)
                let difference = abs(DCTC.differenceNanoseconds(codes[0], codes[1]))
                worst = max(worst, difference)
                #expect(difference <= 500_000, "frame \(live.count): host \(codes[0]) guest \(codes[1])")
                live.append(codes)
            }
            #expect(live.count == seconds * 30)
            #expect(worst <= 500_000)

            let manifestPath = (combined as NSString).deletingLastPathComponent + "/manifest.json"
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any]
            let composite = try #require(manifest?["composite"] as? [String: Any])
            let spread = try #require(composite["pairSpread"] as? [String: Any])
            let p99 = try #require(spread["p99Microseconds"] as? Double)
            #expect(p99 <= 500, "manifest pair spread p99 \(p99) µs")
            #expect((composite["layout"] as? String)?.hasPrefix("split-horizontal") == true)

            let recomposed = try SessionLibraryTests.coordinator(["recompose", (combined as NSString).deletingLastPathComponent,
                                                                  "--layout", "equal", "--preset", "ultrafast"])
            try #require(recomposed.exitCode == 0, "\(recomposed.stderr.suffix(2000))")
            let equal = CompositeCodes(LayoutSpec(kind: .equal), outputWidth: width, outputHeight: height,
                                       sourceWidth: width, sourceHeight: height)
            #expect(equal.placements.map(\.target) == [PixelRect(x: 0, y: 90, width: 320, height: 180),
                                                        PixelRect(x: 320, y: 90, width: 320, height: 180)])
            var fitted: [[UInt32]] = []
            // The render is a file of its own beside the live composite.
            let render = (combined as NSString).deletingPathExtension + "_equal.mp4"
            try MediaProbe.forEachFrame(path: render) { frame in fitted.append(equal.read(frame.image)) }
            #expect(fitted == live, "the fitted pictures read other codes than live")
        }
    }
}
