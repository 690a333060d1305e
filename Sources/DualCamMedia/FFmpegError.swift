import CFFmpeg
import Glibc

/// The one error type for everything libav* reports. It keeps the raw return code (so
/// callers can branch on e.g. ENOENT) next to FFmpeg's own text and what we were doing,
/// because "Invalid data found" alone never tells an operator which file was bad.
public struct FFmpegError: Error, CustomStringConvertible {
    /// The negative AVERROR code returned by the C call.
    public let code: Int32
    /// `av_strerror` text for `code`.
    public let message: String
    /// The C function (or our operation) that failed, e.g. "avformat_open_input".
    public let call: String
    /// The file involved, when there is one.
    public let path: String?
    /// Anything else worth knowing (option values, stream index, ...).
    public let detail: String?

    public init(code: Int32, call: String, path: String? = nil, detail: String? = nil) {
        self.code = code
        self.message = FFmpegError.text(for: code)
        self.call = call
        self.path = path
        self.detail = detail
    }

    public var description: String {
        var text = "\(call)"
        if let path { text += " (\(path))" }
        text += " failed: \(message) [\(code)]"
        if let detail { text += "; \(detail)" }
        return text
    }

    /// POSIX errno behind the code, when FFmpeg wrapped one (AVERROR(e) == -e).
    public var posixErrno: Int32? { code < 0 && code > -4096 ? -code : nil }

    static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        dc_av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// For failures we detect ourselves (bad argument, missing stream) rather than libav*.
    static func invalid(_ call: String, path: String? = nil, _ detail: String) -> FFmpegError {
        FFmpegError(code: dc_averror(EINVAL), call: call, path: path, detail: detail)
    }
}

/// Throws for negative FFmpeg return codes and passes non-negative ones through, so every
/// call site reads as one line and no error code is ever dropped.
@discardableResult
func check(_ code: Int32, _ call: @autoclosure () -> String, path: String? = nil,
           detail: @autoclosure () -> String? = nil) throws(FFmpegError) -> Int32 {
    if code < 0 { throw FFmpegError(code: code, call: call(), path: path, detail: detail()) }
    return code
}
