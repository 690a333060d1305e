import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// Digital zoom end to end, on a running `serve` rig of two synthetic cameras: the
    /// guest zoomed with `camera guest --zoom …` typed into the rig, the host left alone.
    @Suite struct DigitalZoomTests {
        /// The frame's DCTC read as if the picture were scaled `s` times about its centre.
        static func code(_ image: YUV420Image, scale s: Double) -> UInt32 {
            let w = Double(image.width), h = Double(image.height)
            let slot = PixelRect(x: Int((w - w * s) / 2), y: Int((h - h * s) / 2), width: Int(w * s), height: Int(h * s))
            return DCTC.read(image, slot: slot, sourceWidth: image.width, sourceHeight: image.height)
        }

        static func frames(_ path: String) throws -> [YUV420Image] {
            var images: [YUV420Image] = []
            try MediaProbe.forEachFrame(path: path) { images.append($0.image) }
            return images
        }

        @Test func twoTimesZoomDoublesTheCellsOfOneCameraAndARampRisesOverItsSecond() throws {
            let rig = try RecoveryRig()
            let out = rig.root + "/out"
            let serve = try Child("dualcam-coordinator", ["serve", "--countdown", "0", "--size", "320x240", "--no-studio",
                                                          "--state", rig.root + "/coordinator", "--out", out]
                                  + DemoRun.debugBuildClockGate + rig.agentOptions)
            defer { serve.stop() }
            try #require(serve.waitForErr(containing: "rig up", seconds: 60) != nil, "\(serve.errTail())")

            // Take 1: the guest at 2× from the start.
            let (host, guest) = try take(1, serve, rig.agents[1], out, before: "camera guest --zoom 2", during: nil)
            // Both start at T0's frame; at the stop one file may hold a frame more.
            try #require(host.count >= 15 && abs(host.count - guest.count) <= 1, "host \(host.count), guest \(guest.count) frames")
            let frames = min(host.count, guest.count)
            var atTwo = 0, atOne = 0
            for (h, g) in zip(host, guest) {
                let reference = Self.code(h, scale: 1)
                // The host is untouched: its grid reads at 1× and steps 1/30 s.
                if abs(DCTC.differenceNanoseconds(Self.code(g, scale: 2), reference)) <= 500_000 { atTwo += 1 }
                if Self.code(g, scale: 1) == reference { atOne += 1 }
            }
            #expect(atTwo == frames, "\(atTwo) of \(frames) guest frames read at 2× show the host's instant")
            #expect(atOne < frames / 10, "\(atOne) guest frames still read at 1×: the cells did not grow")
            let steps = zip(host, host.dropFirst()).map { DCTC.differenceNanoseconds(Self.code($1, scale: 1), Self.code($0, scale: 1)) }
            #expect(steps.allSatisfy { abs($0 - 33_333_333) <= 1_000_000 }, "host steps \(steps.prefix(10))")

            // Take 2: the guest back to 1× at once, then ramped to 2× over 1 s while recording.
            let (host2, guest2) = try take(2, serve, rig.agents[1], out, before: "camera guest --zoom 1", during: "camera guest --zoom 2 --zoom-ramp 1")
            // Each guest frame's scale: the middle of the scales at which its grid reads the
            // host's instant.
            let candidates = stride(from: 0.8, through: 2.4, by: 0.02).map { $0 }
            let scales: [Double?] = zip(host2, guest2).map { h, g in
                let reference = Self.code(h, scale: 1)
                let fits = candidates.filter { abs(DCTC.differenceNanoseconds(Self.code(g, scale: $0), reference)) <= 500_000 }
                return fits.isEmpty ? nil : (fits.first! + fits.last!) / 2
            }
            let known = scales.compactMap { $0 }
            #expect(known.count >= scales.count * 9 / 10, "scales \(scales)")
            #expect((known.first ?? 0) < 1.05 && (known.last ?? 0) > 1.95, "scales \(known)")
            let reversals = zip(known, known.dropFirst()).filter { $1 < $0 - 0.05 }
            #expect(reversals.isEmpty, "the scale went back: \(reversals) in \(known)")
            // Over 1 s as the ramp has it: from 1.1× to 1.9× takes the frames the pure ramp
            // says (18 at 30 fps, eased), give or take the measurement's ±0.03.
            let ramp = ZoomRamp.none.retargeted(to: 2, centre: .centre, at: 0, durationNanoseconds: 1_000_000_000)
            let instants = (0..<60).map { Int64($0) * 1_000_000_000 / 30 }
            let expected = (instants.firstIndex { ramp.factor(at: $0) >= 1.9 } ?? 0) - (instants.firstIndex { ramp.factor(at: $0) > 1.1 } ?? 0)
            if let start = scales.firstIndex(where: { ($0 ?? 1) > 1.1 }), let end = scales.firstIndex(where: { ($0 ?? 1) >= 1.9 }) {
                #expect(abs((end - start) - expected) <= 3, "the ramp took \(end - start) frames, the pure ramp \(expected): \(known)")
            } else {
                Issue.record("no ramp in \(scales)")
            }
            // The manifest keeps the ramp as the guest's zoom timeline, like the layout's.
            let manifest = try RecordedSession(out: out, name: try sessions(out)[1]).manifest()
            let cameras = try #require(manifest["cameras"] as? [[String: Any]])
            let timelines = cameras.map { (($0["statistics"] as? [String: Any])?["zoomTimeline"] as? [[String: Any]]) ?? [] }
            let guestTimeline = try #require(zip(cameras, timelines).first { ($0.0["file"] as? String)?.hasPrefix("DualCam_Guest_") == true }?.1)
            #expect(guestTimeline.count == 1 && guestTimeline.first?["factor"] as? Double == 2
                    && guestTimeline.first?["rampMilliseconds"] as? Int == 1000, "\(guestTimeline)")
            #expect(timelines.map(\.count).reduce(0, +) == 1, "only the guest zoomed: \(timelines)")
            serve.type("quit")
            #expect(serve.finish(seconds: 20) == 0, "\(serve.errTail())")
        }

        /// Take `n` on the rig: `before` typed and answered, then recorded for about 3 s with
        /// `during` typed half a second in; the host's and the guest's decoded frames.
        private func take(_ n: Int, _ serve: Child, _ guest: Child, _ out: String, before: String, during: String?) throws
            -> ([YUV420Image], [YUV420Image])
        {
            serve.type(before)
            try #require(waitForLines(serve, containing: "zoom: done", count: n), "\(serve.errTail())")
            serve.type("start")
            // The agent logs StartAt, whose T0 is at most the take's lead (1.5 s) later.
            try #require(waitForLines(guest, containing: "from shared t0=", count: n, seconds: 60), "\(serve.errTail())")
            Thread.sleep(forTimeInterval: 2)
            if let during { serve.type(during) }
            Thread.sleep(forTimeInterval: 2.5)
            serve.type("stop")
            try #require(waitForSessions(out, count: n), "\(serve.errTail())")
            // The take is over (its sync checks done, the rig free for the next) once serve
            // prints its files; a `start` before that is refused as a take under way.
            let deadline = Date().addingTimeInterval(60)
            while serve.out.text.components(separatedBy: "Session folder:").count - 1 < n && Date() < deadline { usleep(50_000) }
            let session = RecordedSession(out: out, name: try sessions(out)[n - 1])
            return (try Self.frames(session.file("DualCam_Host_")), try Self.frames(session.file("DualCam_Guest_")))
        }

        private func waitForLines(_ child: Child, containing text: String, count: Int, seconds: Double = 20) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if child.err.text.split(separator: "\n").filter({ $0.contains(text) }).count >= count { return true }
                usleep(50_000)
            }
            return false
        }

        private func sessions(_ out: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") }.sorted()
        }

        private func waitForSessions(_ out: String, count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if let names = try? sessions(out), names.count >= count,
                   names.prefix(count).allSatisfy({ FileManager.default.fileExists(atPath: out + "/" + $0 + "/manifest.json") }) {
                    return true
                }
                usleep(200_000)
            }
            return false
        }
    }
}
