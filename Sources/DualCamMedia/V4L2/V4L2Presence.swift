import CV4L2
import Glibc

/// Whether a V4L2 node can be recorded from now, asked often (every 2 s by the agent's
/// source watch) and while the node may be capturing: a plain open and VIDIOC_QUERYCAP,
/// without libv4l2's conversion set-up, which costs format enumeration on every open.
public enum V4L2Presence {
    /// nil when `path` is a video capture device this process can open; else why not, as
    /// a sentence that says what to do.
    public static func problem(_ path: String) -> String? {
        let choose = "set `device =` in agent.conf (or --device) to a camera `dualcam-agent cameras` lists"
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENODEV, ENXIO:
                return "camera \(path) is missing: plug it in, or \(choose)"
            case EACCES, EPERM:
                return "camera \(path) cannot be opened (permission denied): add the agent's user to the video group "
                    + "(sudo adduser dualcam video) and restart the agent"
            case let code:
                return "camera \(path) cannot be opened (\(String(cString: strerror(code)))): check it is plugged in, or \(choose)"
            }
        }
        defer { close(fd) }
        // A plain descriptor: libv4l2 passes the ioctl straight to the kernel.
        var cap = v4l2_capability()
        let queried = withUnsafeMutablePointer(to: &cap) { dc_v4l2_ioctl(fd, dc_vidioc_querycap(), $0) }
        guard queried >= 0 else {
            let code = errno
            if code == ENODEV || code == ENXIO || code == EIO { return "camera \(path) is missing: plug it in, or \(choose)" }
            return "\(path) is not a camera (VIDIOC_QUERYCAP: \(String(cString: strerror(code)))): \(choose)"
        }
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            return "\(path) is not a camera (it has no video capture): \(choose)"
        }
        return nil
    }
}
