import CFFmpeg

/// FFmpeg's global log level, and our own messages routed through av_log so they land in
/// the same stream (stderr) with the same filtering.
public enum MediaLog {
    /// Only errors from libav* from now on (x264 and the muxers are chatty at info level).
    public static func setQuiet() { av_log_set_level(AV_LOG_ERROR) }

    /// Restores FFmpeg's default level (info).
    public static func setVerbose() { av_log_set_level(AV_LOG_INFO) }

    static func warning(_ message: String) { dc_av_log(AV_LOG_WARNING, "DualCamMedia: \(message)\n") }
    static func error(_ message: String) { dc_av_log(AV_LOG_ERROR, "DualCamMedia: \(message)\n") }
}
