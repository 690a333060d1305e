import DualCamMedia
import Foundation
import Testing

/// The capture path through libasound itself. No sound card exists here, so the PCMs are
/// ALSA's own `file` plugin reading a prepared file as if a microphone had captured it
/// (over the `null` PCM, which delivers at once instead of in real time: pacing by a
/// real card's clock is not covered here).
@Suite(.serialized) struct ALSACaptureTests {
    /// ALSA reads its configuration once per process: every test here shares this one.
    static let setup: String = {
        let folder = NSTemporaryDirectory() + "dualcam-alsa-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A ramp, so any reordering, skipping or byte-order slip shows.
        var s16 = Data()
        for i in 0..<48_000 { withUnsafeBytes(of: Int16(truncatingIfNeeded: (i % 2000) * 16 - 16_000).littleEndian) { s16.append(contentsOf: $0) } }
        try? s16.write(to: URL(fileURLWithPath: folder + "/s16.raw"))
        var s24 = Data()
        for i in 0..<48_000 {
            let v = Int32((i % 2000) * 4096 - 4_096_000)
            s24.append(contentsOf: [UInt8(v & 0xff), UInt8((v >> 8) & 0xff), UInt8((v >> 16) & 0xff)])
        }
        try? s24.write(to: URL(fileURLWithPath: folder + "/s24.raw"))
        let config = """
        pcm.dualcam_test_s16 {
          type file
          slave.pcm "null"
          file "/dev/null"
          infile "\(folder)/s16.raw"
          format "raw"
          hint { show on description "DualCam test microphone, 16-bit" }
        }
        pcm.dualcam_test_s24 {
          type file
          slave.pcm "null"
          file "/dev/null"
          infile "\(folder)/s24.raw"
          format "raw"
        }
        """
        try? config.write(toFile: folder + "/asound.conf", atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:\(folder)/asound.conf", 1)
        return folder
    }()

    @Test func sixteenBitSamplesArriveInOrderScaledToFullScale() throws {
        _ = Self.setup
        let capture = try ALSACapture(device: "dualcam_test_s16", sampleRate: 48_000, channels: 1, bits: 16, periodFrames: 1024)
        #expect(capture.formatName == "S16_LE")
        var samples: [Float] = []
        var instants: [Int64] = []
        for _ in 0..<4 {
            let chunk = try capture.read()
            #expect(chunk.samples.count == capture.periodFrames)
            samples += chunk.samples
            instants.append(chunk.firstSampleNanoseconds)
        }
        for i in 0..<samples.count {
            let expected = Float((i % 2000) * 16 - 16_000) / 32768
            #expect(abs(samples[i] - expected) < 1e-6, "sample \(i)")
            if abs(samples[i] - expected) >= 1e-6 { break }
        }
        // Stamped on CLOCK_MONOTONIC, not the wall clock: near now, never decreasing.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let monotonic = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        #expect(instants.allSatisfy { abs($0 - monotonic) < 5_000_000_000 })
        #expect(zip(instants, instants.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func twentyFourBitSamplesKeepTheirLowBits() throws {
        _ = Self.setup
        let capture = try ALSACapture(device: "dualcam_test_s24", sampleRate: 48_000, channels: 1, bits: 24, periodFrames: 512)
        #expect(capture.formatName == "S24_3LE")
        let chunk = try capture.read()
        for i in 0..<chunk.samples.count {
            let expected = Float((i % 2000) * 4096 - 4_096_000) / 8_388_608
            #expect(abs(chunk.samples[i] - expected) < 1e-6, "sample \(i)")
            if abs(chunk.samples[i] - expected) >= 1e-6 { break }
        }
    }

    @Test func aMissingDeviceSaysWhichAndWhatToDo() throws {
        _ = Self.setup
        do {
            _ = try ALSACapture(device: "no_such_microphone", sampleRate: 48_000, channels: 1, bits: 16)
            Issue.record("opening a device that does not exist succeeded")
        } catch let error as ALSAError {
            #expect(error.code < 0)
            #expect(error.description.contains("no_such_microphone"))
            #expect(error.description.contains("dualcam-agent microphones"))
        }
    }

    @Test func aHintedPCMIsListedAsAMicrophone() {
        _ = Self.setup
        let devices = ALSADevices.capture()
        #expect(devices.contains { $0.name == "dualcam_test_s16" && $0.description.contains("DualCam test microphone") })
    }
}
