import DualCamCore
import DualCamMedia
import Foundation
import Testing

extension EndToEnd {
    /// `dualcam-agent record` run as a user would: each source, the disk checks, a signal.
    @Suite struct AgentRecordTests {
        static let width = 320
        static let height = 180
        static let period = 1.0 / 30

        func folder(_ name: String) -> String {
            NSTemporaryDirectory() + "dualcam-record-\(name)-\(getpid())"
        }

        /// The file `record` printed, and the manifest's segments beside it.
        func recorded(_ child: Child) throws -> (movie: String, stdout: String) {
            let stdout = child.out.all()
            let line = try #require(stdout.split(separator: "\n").first { $0.hasPrefix("file: ") }, "\(stdout)\n\(child.err.all().suffix(2000))")
            return (String(line.dropFirst(6)), stdout)
        }

        @Test func syntheticRecordingHoldsEveryFrameOnItsGrid() throws {
            let out = folder("synthetic")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--duration", "3", "--out", out,
                                                    "--size", "\(Self.width)x\(Self.height)", "--fps", "30"])
            #expect(agent.finish(seconds: 60) == 0, "\(agent.err.all().suffix(2000))")
            let (movie, stdout) = try recorded(agent)
            #expect(stdout.contains("recorded 90 frames in 2 segments, 0 dropped"), "\(stdout)")
            let probe = try MediaProbe.probe(path: movie)
            #expect(probe.frameCount == 90)
            for (a, b) in zip(probe.frameTimestampsSeconds, probe.frameTimestampsSeconds.dropFirst()) {
                #expect(abs((b - a) - Self.period) < 0.002, "step \(b - a) s")
            }
            var codes: [UInt32] = []
            try MediaProbe.forEachFrame(path: movie) { codes.append(DCTC.read($0.image)) }
            for (a, b) in zip(codes, codes.dropFirst()) {
                #expect(abs(DCTC.differenceNanoseconds(b, a) - 33_333_333) <= 100_000, "codes \(a) → \(b)")
            }
        }

        /// A 44.1 kHz card (simulated 50 ppm off) records a 48 kHz track, the same as every
        /// node's, still in lip sync with the pictures.
        @Test func aFortyFourKilohertzCardGivesAFortyEightKilohertzTrackInSync() throws {
            let out = folder("audio441")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--duration", "5", "--out", out, "--audio-rate", "44100",
                                                    "--simulate-audio-rate-ppm", "50",
                                                    "--size", "\(Self.width)x\(Self.height)", "--fps", "30"])
            #expect(agent.finish(seconds: 60) == 0, "\(agent.err.all().suffix(2000))")
            let (movie, _) = try recorded(agent)
            let track = try #require(try AudioTrackReader.read(path: movie))
            #expect(track.sampleRate == 48_000)
            let sync = try AVSyncProbe.measure(path: movie)
            #expect(sync.offsetsNanoseconds.count >= 4, "\(sync)")
            #expect(sync.worstNanoseconds <= 15_000_000, "A/V offsets \(sync.offsetsNanoseconds) ns")
            // No drift: at 44.1 → 48 kHz a rounding per chunk once moved the sound 0.4 ms a second.
            let spread = (sync.offsetsNanoseconds.max() ?? 0) - (sync.offsetsNanoseconds.min() ?? 0)
            #expect(spread <= 1_000_000, "A/V offsets \(sync.offsetsNanoseconds) ns")
        }

        @Test func pipedPicturesAreAllKeptInOrder() throws {
            let out = folder("yuv")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let agent = try Child("dualcam-agent", ["record", "--source", "stdin", "--format", "yuv420p", "--out", out,
                                                    "--size", "\(Self.width)x\(Self.height)", "--fps", "30"])
            // 75 pictures written as fast as the pipe takes them: a burst, which must
            // neither lose frames nor stamp them alike.
            let sent = 75
            for k in 0..<sent {
                var image = YUV420Image(width: Self.width, height: Self.height)
                SyntheticPicture.render(frameIndex: Int64(k), into: &image)
                DCTC.draw(DCTC.code(trueNanoseconds: Int64(k) * 33_333_333 + 1_000_000_000), into: &image)
                agent.input.fileHandleForWriting.write(Data(image.y + image.cb + image.cr))
            }
            try agent.input.fileHandleForWriting.close()
            #expect(agent.finish(seconds: 60) == 0, "\(agent.err.all().suffix(2000))")
            let (movie, stdout) = try recorded(agent)
            #expect(stdout.contains("recorded \(sent) frames"), "\(stdout)")
            var codes: [UInt32] = []
            try MediaProbe.forEachFrame(path: movie) { codes.append(DCTC.read($0.image)) }
            #expect(codes.count == sent)
            for (k, code) in codes.enumerated() {
                #expect(code == DCTC.code(trueNanoseconds: Int64(k) * 33_333_333 + 1_000_000_000), "frame \(k)")
            }
            let probe = try MediaProbe.probe(path: movie)
            for (a, b) in zip(probe.frameTimestampsSeconds, probe.frameTimestampsSeconds.dropFirst()) {
                #expect(abs((b - a) - Self.period) < 0.002, "step \(b - a) s")
            }
        }

        @Test func pipedH264IsPassedThroughByteForByte() throws {
            let out = folder("h264")
            defer { try? FileManager.default.removeItem(atPath: out) }
            // The stream a Pi camera would pipe: Annex B with parameter sets in band.
            let encoder = try VideoEncoder(settings: VideoEncoderSettings(
                width: Self.width, height: Self.height, rate: .fps30, preset: "ultrafast", crf: 30, gopFrames: 30))
            var units: [EncodedPacket] = []
            for k in 0..<60 {
                var image = YUV420Image(width: Self.width, height: Self.height)
                SyntheticPicture.render(frameIndex: Int64(k), into: &image)
                units += try encoder.encode(image, ptsNanoseconds: Int64(k) * 33_333_333, forceKeyframe: k % 30 == 0)
            }
            units += try encoder.flush()
            let agent = try Child("dualcam-agent", ["record", "--source", "stdin", "--format", "h264", "--out", out,
                                                    "--size", "\(Self.width)x\(Self.height)", "--fps", "30"])
            let extradata = encoder.parameters.extradata
            for (k, unit) in units.enumerated() {
                // The first keyframe carries the parameter sets, as rpicam-vid --inline writes them.
                let bytes = k == 0 && !H264Bitstream.parameterSets(unit.data).isEmpty ? unit.data : (k == 0 ? extradata + unit.data : unit.data)
                agent.input.fileHandleForWriting.write(Data(bytes))
            }
            try agent.input.fileHandleForWriting.close()
            #expect(agent.finish(seconds: 60) == 0, "\(agent.err.all().suffix(2000))")
            let (movie, _) = try recorded(agent)
            let demuxer = try MediaDemuxer(path: movie)
            var received: [[UInt8]] = []
            while let packet = try demuxer.nextVideoPacket() { received.append(packet.data) }
            #expect(received.count == units.count)
            // MP4 stores length-prefixed NAL units where the pipe had start codes, and
            // the TS muxer adds access unit delimiters; the slices themselves must be
            // identical, byte for byte (never re-encoded).
            var changed = 0
            for (a, b) in zip(units, received) where Self.slices(annexB: a.data) != Self.slices(lengthPrefixed: b) {
                changed += 1
            }
            #expect(changed == 0, "\(changed) of \(units.count) frames differ from what was piped in")
        }

        /// NAL units other than delimiters and parameter sets, from an Annex B unit.
        static func slices(annexB data: [UInt8]) -> [[UInt8]] {
            var starts: [Int] = []
            var i = 0
            while i + 3 <= data.count {
                if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
            }
            var units: [[UInt8]] = []
            for (n, start) in starts.enumerated() {
                var end = n + 1 < starts.count ? starts[n + 1] - 3 : data.count
                while end > start && data[end - 1] == 0 { end -= 1 }
                units.append(Array(data[start..<end]))
            }
            return units.filter { !$0.isEmpty && ![7, 8, 9].contains($0[0] & 0x1F) }
        }

        /// The same, from an MP4 sample (4-byte big-endian lengths).
        static func slices(lengthPrefixed data: [UInt8]) -> [[UInt8]] {
            var units: [[UInt8]] = []
            var i = 0
            while i + 4 <= data.count {
                let length = data[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
                guard i + 4 + length <= data.count else { break }
                units.append(Array(data[(i + 4)..<(i + 4 + length)]))
                i += 4 + length
            }
            return units.filter { !$0.isEmpty && ![7, 8, 9].contains($0[0] & 0x1F) }
        }

        @Test func aRecordingTooBigForTheDiskIsRefusedUpFront() throws {
            let out = folder("space")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--duration", "100000000", "--out", out,
                                                    "--size", "\(Self.width)x\(Self.height)"])
            #expect(agent.finish(seconds: 30) != 0)
            let err = agent.err.all()
            #expect(err.contains("not enough disk space") && err.contains("needs") && err.contains("free"), "\(err)")
            #expect(!FileManager.default.fileExists(atPath: out + "/segments"))
        }

        /// A disk that fills for real, as another program filling it would: a 16 MB tmpfs
        /// with room for the minute a recording with no set length must have, then filled
        /// mid-recording up to its last byte (a write fails, or the boundary check sees 0
        /// bytes free), or to 600 kB short of it (the 1 MB reserve check stops at a segment
        /// boundary). Mounting needs root, as the
        /// test machines run; elsewhere the test is skipped and says why.
        @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"),
              arguments: [(0, "is full"), (600_000, "nearly full")])
        func aFullDiskStopsTheRecordingWithEverySegmentWhole(leftFree: Int, said: String) throws {
            let out = folder("full-\(leftFree)")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let mount = Process()
            mount.executableURL = URL(fileURLWithPath: "/bin/mount")
            mount.arguments = ["-t", "tmpfs", "-o", "size=16m", "tmpfs", out]
            try mount.run()
            mount.waitUntilExit()
            try #require(mount.terminationStatus == 0, "cannot mount a tmpfs at \(out)")
            defer {
                let umount = Process()
                umount.executableURL = URL(fileURLWithPath: "/bin/umount")
                umount.arguments = [out]
                try? umount.run()
                umount.waitUntilExit()
                try? FileManager.default.removeItem(atPath: out)
            }
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--out", out, "--size", "\(Self.width)x\(Self.height)",
                                                    "--bitrate", "1M", "--segment-seconds", "0.5", "--disk-reserve-mb", "1"])
            // The recording begins once `--preset auto` has measured the encoder.
            _ = try #require(agent.waitForErr(containing: "preset auto:", seconds: 30), "\(agent.errTail())")
            usleep(3_000_000)
            var stats = statvfs()
            try #require(statvfs(out, &stats) == 0)
            let fill = Int(stats.f_bavail) * Int(stats.f_frsize) - leftFree
            let filler = Process()
            filler.executableURL = URL(fileURLWithPath: "/bin/dd")
            filler.arguments = ["if=/dev/zero", "of=\(out)/filler", "bs=4096", "count=\(max(fill, 0) / 4096 + (leftFree == 0 ? 1 : 0))"]
            filler.standardError = FileHandle.nullDevice
            try filler.run()
            filler.waitUntilExit()
            #expect(agent.finish(seconds: 90) == 1)
            let err = agent.err.all()
            // Filled to the last byte, either a write fails first ("is full") or the check
            // at the next segment boundary sees 0 bytes free first: which, the filler's
            // timing against the muxer's buffered writes decides (CI saw the second once in
            // three runs). Both stop with every completed segment kept, checked below.
            let saidIt = err.contains(said) || (leftFree == 0 && err.contains("is nearly full (0 MB free"))
            #expect(err.contains("the disk holding \(out)") && saidIt && err.contains("every completed segment is kept"),
                    "\(err.suffix(2000))")
            let segments = try #require(FileManager.default.subpaths(atPath: out)?.first { $0.hasSuffix("manifest.jsonl") })
            let folder = out + "/" + (segments as NSString).deletingLastPathComponent
            let listed = try String(contentsOfFile: out + "/" + segments, encoding: .utf8).split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(listed.count >= 3)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ts") }
            #expect(files.count == listed.count, "\(files.sorted())")
            for entry in listed {
                let path = try #require(entry["path"] as? String)
                #expect(try MediaProbe.probe(path: path).frameCount == entry["frameCount"] as? Int, "\(path)")
            }
        }

        @Test func sigtermFinishesTheCurrentSegment() throws {
            let out = folder("sigterm")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let agent = try Child("dualcam-agent", ["record", "--source", "synthetic", "--out", out, "--size", "\(Self.width)x\(Self.height)",
                                                    "--segment-seconds", "1"])
            // The recording begins once `--preset auto` has measured the encoder.
            _ = try #require(agent.waitForErr(containing: "preset auto:", seconds: 30), "\(agent.errTail())")
            usleep(3_200_000)
            agent.process.terminate()
            #expect(agent.finish(seconds: 30) == 0, "\(agent.err.all().suffix(2000))")
            let (movie, _) = try recorded(agent)
            let probe = try MediaProbe.probe(path: movie)
            // About 2.7 s were recorded (3.2 s less the 0.5 s lead); every frame is in
            // the file, the last segment closed rather than cut.
            #expect((70...90).contains(probe.frameCount), "\(probe.frameCount) frames")
            let manifest = try String(contentsOfFile: try #require(FileManager.default.subpaths(atPath: out)?
                .first { $0.hasSuffix("manifest.jsonl") }.map { out + "/" + $0 }), encoding: .utf8)
            let listed = manifest.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(listed.reduce(0) { $0 + (($1["frameCount"] as? Int) ?? 0) } == probe.frameCount)
            for entry in listed {
                let path = try #require(entry["path"] as? String)
                #expect(try MediaProbe.probe(path: path).frameCount == entry["frameCount"] as? Int, "\(path)")
                #expect((entry["sha256"] as? String)?.count == 64)
            }
        }
    }
}
