import CAlsa
import Glibc

/// The one error type for everything libasound reports: its negative return code, the
/// call and the device, because "Device or resource busy" alone never tells an operator
/// which microphone another program holds.
public struct ALSAError: Error, CustomStringConvertible {
    /// The negative code libasound returned (-errno), or 0 for failures we detect ourselves.
    public let code: Int32
    public let call: String
    public let device: String
    public let detail: String?

    public init(code: Int32, call: String, device: String, detail: String? = nil) {
        self.code = code
        self.call = call
        self.device = device
        self.detail = detail
    }

    /// The microphone went away (USB unplugged) rather than refusing a request.
    public var isDisconnect: Bool { code == -ENODEV || code == -ENXIO || code == -EIO }

    public var description: String {
        var text = "microphone \(device): \(call) failed"
        if code != 0 { text += ": \(String(cString: snd_strerror(code))) [\(code)]" }
        if let detail { text += "; \(detail)" }
        if code == -ENOENT { text += " (list microphones with 'dualcam-agent microphones')" }
        if code == -EBUSY { text += " (another program is using it)" }
        return text
    }
}

@discardableResult
func alsaCheck(_ code: Int32, _ call: @autoclosure () -> String, device: String,
               detail: @autoclosure () -> String? = nil) throws(ALSAError) -> Int32 {
    if code < 0 { throw ALSAError(code: code, call: call(), device: device, detail: detail()) }
    return code
}
