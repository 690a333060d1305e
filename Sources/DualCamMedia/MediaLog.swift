import CFFmpeg
import Synchronization

/// FFmpeg's global log level, and our own messages routed through av_log so they land in
/// the same stream (stderr by default) with the same filtering.
public enum MediaLog {
    public enum Level: Sendable {
        case error, warning, info, debug
    }

    /// Only errors from libav* from now on (x264 and the muxers are chatty at info level).
    public static func setQuiet() { av_log_set_level(AV_LOG_ERROR) }

    /// Restores FFmpeg's default level (info).
    public static func setVerbose() { av_log_set_level(AV_LOG_INFO) }

    /// From now on FFmpeg's lines (and ours through it) go to `deliver`, one call a line,
    /// rather than raw to stderr: a service logs them with a priority journald can file.
    public static func route(_ deliver: @escaping @Sendable (Level, String) -> Void) {
        sink.withLock { $0 = deliver }
        dc_route_av_log()
    }

    /// Back to FFmpeg's own callback (stderr).
    public static func unroute() {
        dc_unroute_av_log()
        sink.withLock { $0 = nil }
    }

    static func warning(_ message: String) { dc_av_log(AV_LOG_WARNING, "DualCamMedia: \(message)\n") }
    static func error(_ message: String) { dc_av_log(AV_LOG_ERROR, "DualCamMedia: \(message)\n") }

    private static let sink = Mutex<(@Sendable (Level, String) -> Void)?>(nil)

    fileprivate static func deliver(level: Int32, line: String) {
        let text = line.hasSuffix("\n") ? String(line.dropLast()) : line
        guard !text.isEmpty, let deliver = sink.withLock({ $0 }) else { return }
        let mapped: Level = level <= AV_LOG_ERROR ? .error : level <= AV_LOG_WARNING ? .warning : level <= AV_LOG_INFO ? .info : .debug
        deliver(mapped, text)
    }
}

/// Called by the C shim's av_log callback, from whichever thread logged (x264's too).
@_cdecl("dc_media_log_line")
func dcMediaLogLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    MediaLog.deliver(level: level, line: String(cString: line))
}
