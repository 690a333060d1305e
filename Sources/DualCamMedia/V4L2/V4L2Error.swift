import Glibc

/// The one error type for everything libv4l2 and the V4L2 ioctls report: the errno, the
/// request that failed and the device, because "Invalid argument" alone never tells an
/// operator which camera refused which setting.
public struct V4L2Error: Error, CustomStringConvertible {
    /// errno after the failing call (0 for failures we detect ourselves).
    public let code: Int32
    /// The call or request, e.g. "VIDIOC_S_FMT".
    public let call: String
    public let device: String
    public let detail: String?

    public init(code: Int32, call: String, device: String, detail: String? = nil) {
        self.code = code
        self.call = call
        self.device = device
        self.detail = detail
    }

    /// The camera went away (unplugged, driver unbound) rather than refusing a request.
    public var isDisconnect: Bool { code == ENODEV || code == ENXIO || code == EIO }

    public var description: String {
        var text = "\(device): \(call) failed"
        if code != 0 { text += ": \(String(cString: strerror(code))) [errno \(code)]" }
        if let detail { text += "; \(detail)" }
        if isDisconnect { text += " (the camera was disconnected; segments recorded so far are kept)" }
        return text
    }
}
