import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation
import Testing

/// Sound through the real libavcodec AAC encoder and decoder, the TS segments and the
/// MP4 remux: the DCTC audio companion's bursts must come out where they went in.
@Suite struct AudioTests {
    static let rate = 48_000

    /// `seconds` of the tone-burst companion whose sample 0 is at true time `start`.
    static func bursts(seconds: Double, startNanoseconds start: Int64) -> [Float] {
        (0..<Int(seconds * Double(rate))).map {
            ToneBurst.sample(atTrueNanoseconds: start + Int64($0) * 1_000_000_000 / Int64(rate))
        }
    }

    @Test func aacRoundTripKeepsBurstOnsetsAtTheirPositions() throws {
        MediaLog.setQuiet()
        let encoder = try AudioEncoder(sampleRate: Self.rate, channels: 1)
        var packets: [EncodedPacket] = []
        // Sample 0 is 0.3 s before a whole second: bursts at 0.7 s, 1.7 s, 2.7 s.
        let input = Self.bursts(seconds: 3.5, startNanoseconds: 300_000_000)
        for chunk in stride(from: 0, to: input.count, by: 1000) {
            packets += try encoder.encode(Array(input[chunk..<min(chunk + 1000, input.count)]))
        }
        packets += try encoder.flush()
        #expect(packets.first?.ptsNanoseconds ?? 0 < 0, "libavcodec's priming packet comes first, before 0")
        let decoder = try AudioDecoder(parameters: encoder.parameters)
        var output = [Float](repeating: 0, count: input.count + 4096)
        for packet in packets {
            for chunk in try decoder.decode(packet) {
                let at = Int(chunk.ptsNanoseconds * Int64(Self.rate) / 1_000_000_000)
                for (i, v) in chunk.samples.enumerated() where at + i >= 0 && at + i < output.count { output[at + i] = v }
            }
        }
        let onsets = BurstOnsets.find(samples: output, sampleRate: Self.rate)
        #expect(onsets.count == 3)
        for (onset, expected) in zip(onsets, [700_000_000, 1_700_000_000, 2_700_000_000] as [Int64]) {
            #expect(abs(onset - expected) < 500_000, "onset \(onset) ns, expected \(expected) ns")
        }
    }

    @Test func segmentsWithSoundRemuxToAnMP4WithBothTracksInPlace() throws {
        MediaLog.setQuiet()
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let timestamps = (0..<90).map { Encoding.rate.instant(ofFrame: Int64($0)) }
        let (parameters, video) = try Encoding.encode(timestamps: timestamps) { $0 % 30 == 0 }
        let encoder = try AudioEncoder(sampleRate: Self.rate, channels: 1)
        let samples = Self.bursts(seconds: 3, startNanoseconds: 600_000_000)
        let audio = (try encoder.encode(samples) + encoder.flush()).filter { $0.ptsNanoseconds >= 0 }
        // Three segments, each with the sound of its second, as the agent writes them.
        var paths: [String] = []
        for s in 0..<3 {
            let path = folder.file("seg\(s).ts")
            let writer = try SegmentWriter(path: path, parameters: parameters, audio: encoder.parameters)
            let lo = Int64(s) * 1_000_000_000, hi = lo + 1_000_000_000
            for packet in video where packet.ptsNanoseconds >= lo && packet.ptsNanoseconds < hi { try writer.write(packet) }
            for packet in audio where packet.ptsNanoseconds >= lo && packet.ptsNanoseconds < hi { try writer.writeAudio(packet) }
            _ = try writer.finish()
            paths.append(path)
        }
        let mp4 = folder.file("camera.mp4")
        let remuxer = try MP4Remuxer(outputPath: mp4, parameters: parameters, creationTimeUnixSeconds: nil)
        for path in paths { try remuxer.append(segmentAt: path) }
        try remuxer.finish()
        #expect(remuxer.packetCount == 90)
        #expect(remuxer.audioPacketCount == audio.count)
        let track = try #require(try AudioTrackReader.read(path: mp4))
        #expect(track.sampleRate == Self.rate && track.channels == 1)
        let onsets = BurstOnsets.find(samples: track.mono, sampleRate: Self.rate).map { $0 + track.startNanoseconds }
        // Bursts at 0.4, 1.4, 2.4 s of the file; the first 21 ms decode faded (no priming packet).
        #expect(onsets.count == 3)
        for (onset, expected) in zip(onsets, [400_000_000, 1_400_000_000, 2_400_000_000] as [Int64]) {
            #expect(abs(onset - expected) < 500_000, "onset \(onset) ns, expected \(expected) ns")
        }
        let window = try #require(try AudioTrackReader.read(path: mp4, fromNanoseconds: 1_000_000_000, toNanoseconds: 2_000_000_000))
        #expect(window.samples.count == Self.rate)
        let windowOnsets = BurstOnsets.find(samples: window.mono, sampleRate: Self.rate)
        #expect(windowOnsets.count == 1 && abs(windowOnsets[0] - 400_000_000) < 500_000)
    }

    @Test(arguments: [0, 25, -25, 240])
    func resamplerCompensationDeliversTheAskedCountOnAverage(delta: Int) throws {
        let resampler = try AudioResampler(inputRate: Self.rate, outputRate: Self.rate, channels: 1)
        var asked = 0
        var made = 0
        let chunk = [Float](repeating: 0.1, count: 1024)
        for _ in 0..<200 {
            let out = try resampler.convert(chunk, outputCount: 1024 + delta)
            asked += 1024 + delta
            made += out.count
        }
        // The filter's delay holds back a few samples for good; nothing else may go missing.
        #expect(abs(asked - made) <= 64, "asked \(asked), made \(made)")
    }

    /// 44.1 kHz in, 48 kHz out: 1024 samples become 1114.56, so the count asked of each
    /// chunk is rounded; over a minute the rounding must not add up to a drift.
    @Test(arguments: [0, 5, -5])
    func resamplingFromFortyFourKilohertzKeepsTheAskedCount(delta: Int) throws {
        let resampler = try AudioResampler(inputRate: 44_100, outputRate: 48_000, channels: 1)
        var asked = 0
        var made = 0
        var taken = 0
        let chunk = [Float](repeating: 0.1, count: 1024)
        for _ in 0..<2600 {
            let before = taken * 48_000 / 44_100
            taken += 1024
            let count = taken * 48_000 / 44_100 - before + delta
            made += try resampler.convert(chunk, outputCount: count).count
            asked += count
        }
        #expect(abs(asked - made) <= 64, "asked \(asked), made \(made)")
    }

    @Test func encoderPositionCountsFromTheStartPosition() throws {
        let encoder = try AudioEncoder(sampleRate: 44_100, channels: 2, startPosition: 441_000)
        var packets = try encoder.encode([Float](repeating: 0, count: 2048 * 2))
        #expect(encoder.position == 441_000 + 2048)
        packets += try encoder.flush()
        // Priming packet one frame before 10 s, then frames at 10 s and on, 1024 samples apart.
        let pts = packets.map(\.ptsNanoseconds)
        #expect(pts.prefix(3) == [10_000_000_000 - 23_219_955, 10_000_000_000, 10_023_219_955])
    }
}

/// The uncompressed path: SMPTE 302M in the segments, WAV beside the files.
@Suite struct LosslessAudioTests {
    @Test(arguments: [16, 24])
    func smpte302mRoundTripIsBitExact(bits: Int) throws {
        MediaLog.setQuiet()
        let encoder = try AudioEncoder(codec: .smpte302m(bits: bits), sampleRate: 48_000, channels: 1)
        #expect(encoder.parameters.codecName == "s302m" && encoder.parameters.channels == 2)
        #expect(encoder.parameters.bitsPerSample == bits)
        let scale = Float(bits == 16 ? 32768 : 8_388_608)
        // Every value a capture of that depth can hold is representable exactly.
        let input = (0..<4096).map { Float(($0 * 7919) % Int(scale) - Int(scale) / 2) / scale }
        let packets = try encoder.encode(input) + encoder.flush()
        let decoder = try AudioDecoder(parameters: encoder.parameters)
        var output: [Float] = []
        for packet in packets { for chunk in try decoder.decode(packet) { output += chunk.samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element) } }
        #expect(output.count == input.count)
        #expect(output == input, "first difference at \(zip(output, input).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
    }

    @Test func smpte302mRefusesWhatItCannotCarry() {
        #expect(throws: FFmpegError.self) { try AudioEncoder(codec: .smpte302m(bits: 16), sampleRate: 44_100, channels: 1) }
    }

    @Test func wavPlacesSamplesByPositionFromT0() throws {
        let folder = try TemporaryFolder("media")
        defer { folder.remove() }
        let path = folder.file("node.wav")
        let wav = try WAVWriter(path: path, sampleRate: 48_000, channels: 1, bits: 16)
        // Sound from position 10, a gap from 14 to 20, then a chunk overlapping what was written.
        try wav.write([0.5, 0.5, 0.5, 0.5], sourceChannels: 1, atPosition: 10)
        try wav.write([0.25, 0.25], sourceChannels: 1, atPosition: 20)
        // Stereo in, mono out (left kept); its first frame overlaps position 21 and is dropped.
        try wav.write([-0.5, -0.5, -0.25, 0.75], sourceChannels: 2, atPosition: 21)
        try wav.finish()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == 44 + 2 * 23)
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "RIFF" && String(decoding: data[8..<12], as: UTF8.self) == "WAVE")
        func u32(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 | Int(data[at + 3]) << 24 }
        #expect(u32(4) == 36 + 46 && u32(24) == 48_000 && u32(40) == 46)
        let samples = stride(from: 44, to: data.count, by: 2).map { Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
        #expect(Array(samples[0..<10]) == Array(repeating: 0, count: 10))
        #expect(Array(samples[10..<14]) == [16384, 16384, 16384, 16384])
        #expect(Array(samples[14..<20]) == Array(repeating: 0, count: 6))
        #expect(Array(samples[20..<23]) == [8192, 8192, -8192])
    }
}
