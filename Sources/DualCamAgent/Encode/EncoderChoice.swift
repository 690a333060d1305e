import DualCamMedia

/// Opens the encoder asked for, falling back to libx264 when a hardware one cannot open:
/// a Pi 4's `h264_v4l2m2m` needs the kernel's codec driver, which other boards and VMs
/// lack, and a recording must not fail for want of a hardware block. A software encoder
/// that cannot open is an error: falling back would change the codec asked for.
enum EncoderChoice {
    static let fallback = "libx264"
    static let hardware = "h264_v4l2m2m"

    /// `preset` replaces the settings' own (`auto` resolved, or a governor's step).
    static func open(_ settings: RecordingSettings, preset: String? = nil) throws -> (encoder: VideoEncoder, note: String?) {
        var wanted = encoderSettings(settings)
        if let preset { wanted.preset = preset }
        do {
            return (try VideoEncoder(settings: wanted), nil)
        } catch where wanted.isHardware {
            var software = settings.encoderSettings
            software.encoder = fallback
            if let preset { software.preset = preset }
            let encoder = try VideoEncoder(settings: software)
            return (encoder, "encoder \(wanted.encoder) is not usable here (\(error)); encoding with \(fallback)")
        }
    }

    /// The settings' encoder as it opens: the hardware encoder has no constant-quality
    /// mode, so it gets the bitrate the disk check plans for.
    static func encoderSettings(_ settings: RecordingSettings, encoder: String? = nil) -> VideoEncoderSettings {
        var wanted = settings.encoderSettings
        if let encoder { wanted.encoder = encoder }
        if wanted.isHardware && wanted.bitrate == nil {
            wanted.bitrate = SpacePlan.bitsPerSecond(settings)
            wanted.crf = nil
        }
        return wanted
    }
}
