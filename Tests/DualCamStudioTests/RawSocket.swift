import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on blocking POSIX sockets: what an idle stranger or a flooding
/// script does, byte for byte, without a client library that would pace or pool it.
final class RawSocket: Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StudioTestError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // A failed connect's socket is closed by deinit.
        guard connected == 0 else { throw StudioTestError("connect: \(String(cString: strerror(errno)))") }
    }

    deinit { Glibc.close(fd) }

    /// False once the peer is gone (no SIGPIPE: MSG_NOSIGNAL).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// What arrives within `timeout` seconds: nil when nothing did, [] when the peer
    /// closed (or reset) the connection.
    func receive(timeout: Double) -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(buffer[..<n]) : []
    }

    /// Whether the peer closed the connection, reading (and dropping) what it sent first.
    func isClosed(waiting timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            guard let bytes = receive(timeout: max(0, deadline.timeIntervalSinceNow)) else { return false }
            if bytes.isEmpty { return true }
        }
    }

    /// One HTTP/1.1 response's head and body (by Content-Length), or nil within `timeout`.
    func response(timeout: Double) -> (status: Int, body: String)? {
        var data = [UInt8]()
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if data.count >= end.upperBound + length {
                    let status = Int(head.split(separator: " ")[1]) ?? 0
                    return (status, String(decoding: data[end.upperBound..<(end.upperBound + length)], as: UTF8.self))
                }
            }
            guard let more = receive(timeout: max(0, deadline.timeIntervalSinceNow)), !more.isEmpty else { return nil }
            data += more
        }
    }
}

/// The client side of RFC 6455, as far as the tests need it.
enum WebSocketFrames {
    static func upgrade(port: Int, cookie: String? = nil) -> String {
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Origin: http://127.0.0.1:\(port)\r\n" + (cookie.map { "Cookie: \($0)\r\n" } ?? "") + "\r\n"
    }

    /// A masked text frame (a client must mask), payload under 126 bytes.
    static func text(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return [0x81, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// Server frames (unmasked) parsed off the front of `data`: (opcode, payload) each.
    static func parse(_ data: inout [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] {
        var frames: [(opcode: UInt8, payload: [UInt8])] = []
        while data.count >= 2 {
            var length = Int(data[1] & 0x7F)
            var offset = 2
            if length == 126 {
                guard data.count >= 4 else { break }
                length = Int(data[2]) << 8 | Int(data[3])
                offset = 4
            } else if length == 127 {
                guard data.count >= 10 else { break }
                length = data[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            guard data.count >= offset + length else { break }
            frames.append((data[0] & 0x0F, Array(data[offset..<(offset + length)])))
            data.removeFirst(offset + length)
        }
        return frames
    }
}
