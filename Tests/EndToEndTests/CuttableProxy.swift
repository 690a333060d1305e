import Foundation
import Glibc

/// A TCP relay on loopback whose connections the test can cut: the network cable pulled
/// between coordinator and agent. While cut, new connections are closed as they arrive.
final class CuttableProxy: @unchecked Sendable {
    // Invariant: `sockets` and `refuseUntil` are touched only under `lock`; `listener`
    // and `port` are set in init and never change.
    private let lock = NSLock()
    private var sockets: Set<Int32> = []
    private var refuseUntil = Date.distantPast
    private let listener: Int32
    let port: Int

    init(targetPort: Int) throws {
        (listener, port) = try LoopbackListener.open(backlog: 8)
        Thread.detachNewThread { [self] in acceptLoop(targetPort: targetPort) }
    }

    /// Drops every relayed connection and refuses new ones for `seconds`.
    func cut(seconds: Double) {
        let open = lock.withLock {
            refuseUntil = Date().addingTimeInterval(seconds)
            defer { sockets = [] }
            return sockets
        }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        cut(seconds: 0)
    }

    private func acceptLoop(targetPort: Int) {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            if lock.withLock({ Date() < refuseUntil }) {
                Glibc.close(client)
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_addr.s_addr = inet_addr("127.0.0.1")
            target.sin_port = UInt16(targetPort).bigEndian
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(client)
                Glibc.close(upstream)
                continue
            }
            // A relay that batched small writes (Nagle) would add tens of milliseconds to
            // every clock-sync exchange; the cable it stands for does not.
            var one: Int32 = 1
            for fd in [client, upstream] { setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) }
            lock.withLock { sockets.formUnion([client, upstream]) }
            Thread.detachNewThread { [self] in relay(from: client, to: upstream) }
            Thread.detachNewThread { [self] in relay(from: upstream, to: client) }
        }
    }

    private func relay(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(source, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            var offset = 0
            while offset < n {
                let w = buffer[offset..<n].withUnsafeBytes { send(sink, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if w <= 0 { break }
                offset += w
            }
            if offset < n { break }
        }
        // Shut down, not closed: the other direction's thread may still hold these
        // descriptors, and a closed one could be reused under it. A test leaks a few.
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
        lock.withLock {
            sockets.remove(source)
            sockets.remove(sink)
        }
    }
}

/// A listening TCP socket on 127.0.0.1 at a port the system picks.
enum LoopbackListener {
    static func open(backlog: Int32 = 1) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound, listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
