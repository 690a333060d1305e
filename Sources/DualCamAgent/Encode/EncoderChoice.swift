import DualCamMedia

/// Opens the encoder asked for, falling back to libx264 when a hardware one cannot open:
/// a Pi 4's `h264_v4l2m2m` needs the kernel's codec driver, which other boards and VMs
/// lack, and a recording must not fail for want of a hardware block. A software encoder
/// that cannot open is an error: falling back would change the codec asked for.
enum EncoderChoice {
    static let fallback = "libx264"

    static func open(_ settings: RecordingSettings) throws -> (encoder: VideoEncoder, note: String?) {
        var wanted = settings.encoderSettings
        if wanted.encoder == "h264_v4l2m2m" && wanted.bitrate == nil {
            // The hardware encoder has no constant-quality mode: it gets the bitrate the
            // disk check plans for.
            wanted.bitrate = SpacePlan.bitsPerSecond(settings)
            wanted.crf = nil
        }
        do {
            return (try VideoEncoder(settings: wanted), nil)
        } catch where wanted.isHardware {
            var software = settings.encoderSettings
            software.encoder = fallback
            let encoder = try VideoEncoder(settings: software)
            return (encoder, "encoder \(wanted.encoder) is not usable here (\(error)); encoding with \(fallback)")
        }
    }
}
