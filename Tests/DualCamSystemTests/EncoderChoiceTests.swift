@testable import DualCamAgent
import DualCamCore
import DualCamMedia
import Testing

/// Which encoder a recording gets: the one asked for, libx264 in place of missing
/// hardware, and an error before recording for a name or preset that cannot work.
struct EncoderChoiceTests {
    /// This machine has no V4L2 memory-to-memory encoder (a Pi 4 has one): the recording
    /// goes on in software and says so.
    @Test func missingHardwareFallsBackToLibx264WithANote() throws {
        let settings = RecordingSettings(width: 320, height: 180, encoder: "h264_v4l2m2m")
        let (encoder, note) = try EncoderChoice.open(settings)
        #expect(encoder.settings.encoder == "libx264")
        #expect(note?.contains("h264_v4l2m2m is not usable here") == true)
    }

    @Test func libx265MakesHEVC() throws {
        let settings = RecordingSettings(width: 320, height: 180, encoder: "libx265", preset: "ultrafast")
        let (encoder, note) = try EncoderChoice.open(settings)
        #expect(note == nil)
        #expect(encoder.parameters.codecName == "hevc")
        var packets: [EncodedPacket] = []
        for k in 0..<3 {
            packets += try encoder.encode(YUV420Image(width: 320, height: 180), ptsNanoseconds: Int64(k) * 33_333_333,
                                          forceKeyframe: k == 0)
        }
        packets += try encoder.flush()
        #expect(packets.count == 3 && packets.first?.isKeyframe == true)
        #expect(packets.map(\.ptsNanoseconds) == [0, 33_333_333, 66_666_666])
    }

    /// A software encoder that cannot open fails the recording rather than silently
    /// changing the codec.
    @Test func aSoftwareEncoderThatCannotOpenIsAnError() {
        let settings = RecordingSettings(width: 320, height: 180, encoder: "libx264", preset: "no-such-preset")
        #expect(throws: FFmpegError.self) { _ = try EncoderChoice.open(settings) }
    }

    @Test func namesAndPresetsAreCheckedBeforeRecording() {
        #expect(VideoEncoderSettings.problem(encoder: "libx264", preset: "veryfast") == nil)
        #expect(VideoEncoderSettings.problem(encoder: "h264_v4l2m2m", preset: "anything") == nil)
        #expect(VideoEncoderSettings.problem(encoder: "bogus", preset: "veryfast")?.contains("--encoder must be one of libx264") == true)
        #expect(VideoEncoderSettings.problem(encoder: "libx265", preset: "quick")?.contains("--preset for libx265") == true)
    }
}

/// The CPU share a quota leaves the agent, read from its cgroup files.
struct CPUShareTests {
    @Test func aVersionOneQuotaIsItsShareOfTheCores() {
        let files = ["/sys/fs/cgroup/cpu/bench/cpu.cfs_quota_us": "25000\n", "/sys/fs/cgroup/cpu/bench/cpu.cfs_period_us": "100000\n"]
        #expect(CPUShare.quota(cgroupFile: "2:cpuacct:/\n1:cpu:/bench\n0::/\n") { files[$0] } == 0.25)
        let none = ["/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1", "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000"]
        #expect(CPUShare.quota(cgroupFile: "1:cpu:/\n0::/\n") { none[$0] } == nil)
    }

    @Test func aVersionTwoCpuMaxIsReadWhereNoVersionOneControllerIs() {
        let files = ["/sys/fs/cgroup/user.slice/a/cpu.max": "150000 100000\n"]
        #expect(CPUShare.quota(cgroupFile: "0::/user.slice/a\n") { files[$0] } == 1.5)
        #expect(CPUShare.quota(cgroupFile: "0::/user.slice/a\n") { _ in "max 100000\n" } == nil)
    }
}
