import CV4L2
import Glibc

/// An open V4L2 node through libv4l2 (which adds format emulation and retries EINTR).
/// Owns the descriptor; not thread-safe.
final class V4L2Device {
    let path: String
    let fd: Int32

    init(path: String) throws {
        let fd = dc_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let hint: String
            switch code {
            case ENOENT: hint = "no such device; `dualcam-agent cameras` lists the cameras present"
            case EACCES: hint = "permission denied; add this user to the 'video' group (sudo adduser $USER video) and log in again"
            case EBUSY: hint = "another program is using the camera"
            default: hint = "cannot open the camera"
            }
            throw V4L2Error(code: code, call: "open", device: path, detail: hint)
        }
        self.path = path
        self.fd = fd
    }

    deinit { v4l2_close(fd) }

    /// One ioctl on the device; `name` goes into the error.
    func control<T>(_ request: UInt, _ name: String, _ argument: inout T, detail: String? = nil) throws {
        let result = withUnsafeMutablePointer(to: &argument) { dc_v4l2_ioctl(fd, request, $0) }
        guard result >= 0 else { throw V4L2Error(code: errno, call: name, device: path, detail: detail) }
    }

    /// Like `control`, but returns false on EINVAL: the enumeration ioctls end that way.
    func enumerate<T>(_ request: UInt, _ name: String, _ argument: inout T) throws -> Bool {
        let result = withUnsafeMutablePointer(to: &argument) { dc_v4l2_ioctl(fd, request, $0) }
        if result >= 0 { return true }
        if errno == EINVAL || errno == ENOTTY { return false }
        throw V4L2Error(code: errno, call: name, device: path)
    }

    func capabilities() throws -> v4l2_capability {
        var cap = v4l2_capability()
        try control(dc_vidioc_querycap(), "VIDIOC_QUERYCAP", &cap)
        return cap
    }
}

/// C fixed-size char arrays (imported as tuples) as Swift strings.
enum CText {
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
