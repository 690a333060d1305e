import Foundation
import NIOCore

/// Why a port could not be listened on, naming the port and the option that moves it:
/// NIO's "bind(descriptor:ptr:bytes:): Address already in use (errno: 98)" says neither.
/// Nil for an error that is not about listening.
public enum ListenFailure {
    public static func describe(_ error: any Error, host: String, port: Int, option: String) -> String? {
        guard let io = error as? IOError else { return nil }
        let at = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch io.errnoCode {
        case EADDRINUSE:
            return "port \(port) (\(at)) is in use by another program: stop it, or choose another port with \(option)"
        case EADDRNOTAVAIL:
            return "\(host) is not an address of this machine: give one of its own with \(option) (or 0.0.0.0 for all)"
        case EACCES:
            return "port \(port) is below 1024, which only root may use: choose a port of 1024 or more with \(option)"
        default:
            return nil
        }
    }
}
