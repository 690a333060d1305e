/// Where an agent's frames come from; chosen on the agent's command line, never by the
/// coordinator.
public enum SourceConfig: Sendable, Equatable, CustomStringConvertible {
    case synthetic
    /// A V4L2 camera; `pixelFormat` forces a fourcc ("YUYV", "MJPG", "H264"), nil negotiates.
    case v4l2(device: String, pixelFormat: String?)
    /// Frames piped to standard input, e.g. from rpicam-vid.
    case stdin(StdinFormat)

    public enum StdinFormat: String, Sendable {
        /// Raw planar 4:2:0 pictures of the configured size, back to back.
        case yuv420p
        /// An H.264 Annex B stream, passed through without re-encoding.
        case h264
    }

    public var description: String {
        switch self {
        case .synthetic: "synthetic"
        case .v4l2(let device, let format): "v4l2 \(device)" + (format.map { " \($0)" } ?? "")
        case .stdin(let format): "stdin \(format.rawValue)"
        }
    }
}
