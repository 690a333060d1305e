import CAvahi

/// A failure reported by avahi-client: its error code, what was being done, and advice.
public struct AvahiError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let context: String

    init(_ code: Int32, _ context: String) {
        self.code = code
        self.context = context
    }

    /// The daemon is not there (not installed, not started, or no D-Bus system bus).
    public var daemonMissing: Bool {
        code == Int32(AVAHI_ERR_NO_DAEMON) || code == Int32(AVAHI_ERR_DBUS_ERROR)
            || code == Int32(AVAHI_ERR_DISCONNECTED)
    }

    public var description: String {
        let text = String(cString: avahi_strerror(code))
        if daemonMissing {
            return "\(context): avahi-daemon is not reachable (\(text), code \(code)). Start it with "
                + "`sudo systemctl start avahi-daemon` (install it with deploy/install-deps.sh), "
                + "or name agents directly with --agent HOST:PORT,DEVICE-ID"
        }
        return "\(context): \(text) (avahi code \(code))"
    }
}
