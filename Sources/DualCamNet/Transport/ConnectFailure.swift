import Foundation
import NIOCore
import NIOPosix

/// Why a connection to an agent could not be made, in words that say what to check:
/// NIO's own text ("SingleConnectionFailure(target: …) (errno: 111)") names neither the
/// program that should be listening nor what to do about it.
public enum ConnectFailure {
    public static func describe(_ error: any Error, host: String, port: Int) -> String {
        let at = "\(host):\(port)"
        switch errno(of: error) {
        case ECONNREFUSED?:
            return "nothing listens at \(at) (connection refused): is dualcam-agent running there, on that port? "
                + "(`dualcam-agent run` prints it as LISTENING port=…)"
        case EHOSTUNREACH?, ENETUNREACH?:
            return "\(host) cannot be reached from this machine (no route): check that both are on the same network"
        case ETIMEDOUT?:
            return "no answer from \(at) in time: a firewall, or the wrong address"
        default:
            if case .connectTimeout? = error as? ChannelError {
                return "no answer from \(at) in time: a firewall, or the wrong address"
            }
            let text = "\(error)"
            if text.contains("UnknownHost") || text.contains("DNS error") || error is SocketAddressError {
                return "cannot find the host \(host): check its name, or give its address"
            }
            return "cannot connect to \(at): \(error)"
        }
    }

    /// The system error under NIO's connection error, where there is one.
    static func errno(of error: any Error) -> Int32? {
        if let io = error as? IOError { return io.errnoCode }
        if let failure = error as? NIOConnectionError {
            for attempt in failure.connectionErrors {
                if let code = errno(of: attempt.error) { return code }
            }
            if let dns = failure.dnsAAAAError ?? failure.dnsAError { return errno(of: dns) }
        }
        return nil
    }
}
