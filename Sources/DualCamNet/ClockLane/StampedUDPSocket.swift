import CLinux
import Glibc
import NIOConcurrencyHelpers

/// A failed socket call of the clock lane, with the C error and what was being done.
public struct ClockLaneError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let context: String

    init(_ context: String, code: Int32 = errno) {
        self.code = code
        self.context = context
    }

    public var description: String { "\(context): \(String(cString: strerror(code))) (errno \(code))" }
}

/// A datagram as it arrived: its bytes, its sender, and how long ago the kernel received
/// it (nil when the kernel gave no stamp, and then the caller's own reading is all there is).
struct StampedDatagram {
    var bytes: [UInt8]
    var from: UDPPeer
    var ageNanoseconds: Int64?
}

/// A datagram's address, held by value.
struct UDPPeer: @unchecked Sendable {
    // Invariant: a plain C struct of bytes (sockaddr_storage and its length), copied by value.
    fileprivate var raw = dc_udp_peer()

    /// `scopeID`: the interface an IPv6 link-local address is on (0 for other addresses).
    init?(ip: String, port: Int, scopeID: UInt32 = 0) {
        guard dc_udp_peer_make(&raw, ip, Int32(port), scopeID) == 0 else { return nil }
    }

    fileprivate init() {}

    var ip: String? {
        var peer = raw
        var text = [UInt8](repeating: 0, count: 64)
        let done = text.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dc_udp_peer_ip(&peer, $0.baseAddress, socklen_t($0.count)) }
        }
        guard done == 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
    }

    var port: Int? {
        var peer = raw
        let port = dc_udp_peer_port(&peer)
        return port >= 0 ? Int(port) : nil
    }
}

/// A UDP socket whose datagrams carry the kernel's receive instant (SO_TIMESTAMPNS): the
/// clock lane's t2 and t4 are taken where the packet met the host, so neither a busy event
/// loop nor a thread's wake-up enters the measured round trip.
///
/// One thread receives; any thread may send. `close` and `send` take the same lock, so a
/// datagram is never written to a descriptor number the process has since reused.
final class StampedUDPSocket: Sendable {
    private let descriptor: NIOLockedValueBox<Int32?>
    /// The port the socket is bound to.
    let port: Int
    private let family: Int32

    /// Opens a socket bound to `localIP` (port 0: the kernel picks one); `scopeID` is the
    /// interface of an IPv6 link-local address.
    init(localIP: String, scopeID: UInt32 = 0) throws(ClockLaneError) {
        guard var local = UDPPeer(ip: localIP, port: 0, scopeID: scopeID) else {
            throw ClockLaneError("clock lane: \(localIP) is not a numeric address", code: EINVAL)
        }
        let fd = dc_udp_open(&local.raw)
        guard fd >= 0 else { throw ClockLaneError("clock lane: opening a UDP socket on \(localIP)") }
        let port = dc_udp_local_port(fd)
        guard port > 0 else {
            let failure = ClockLaneError("clock lane: reading the UDP socket's port")
            Glibc.close(fd)
            throw failure
        }
        self.port = Int(port)
        family = Int32(local.raw.address.ss_family)
        descriptor = NIOLockedValueBox(fd)
    }

    /// The IP traffic class (DSCP and ECN bits) and socket priority its datagrams leave
    /// with (`dc_udp_mark_urgent`), as the kernel reports them; nil when closed.
    var marks: (trafficClass: Int32, priority: Int32)? {
        descriptor.withLockedValue { fd in
            guard let fd else { return nil }
            var tos: Int32 = -1, priority: Int32 = -1
            dc_udp_marks(fd, family, &tos, &priority)
            return (tos, priority)
        }
    }

    func send(_ bytes: [UInt8], to peer: UDPPeer) throws(ClockLaneError) {
        var to = peer.raw
        let sent: Int? = descriptor.withLockedValue { fd in
            guard let fd else { return nil }
            return bytes.withUnsafeBytes { dc_udp_send(fd, $0.baseAddress, $0.count, &to) }
        }
        guard let sent else { throw ClockLaneError("clock lane: send on a closed socket", code: EBADF) }
        guard sent == bytes.count else { throw ClockLaneError("clock lane: sending a datagram") }
    }

    /// The next datagram within `timeoutMilliseconds`, or nil when none came (or the socket
    /// is closed). A datagram longer than `capacity` is returned cut short; its length is
    /// then wrong for every packet, which is how the caller knows to drop it.
    func receive(timeoutMilliseconds: Int32, capacity: Int) throws(ClockLaneError) -> StampedDatagram? {
        guard let fd = descriptor.withLockedValue({ $0 }) else { return nil }
        var bytes = [UInt8](repeating: 0, count: capacity + 1)
        var from = UDPPeer()
        var age: Int64 = -1
        let n = bytes.withUnsafeMutableBytes { dc_udp_receive(fd, $0.baseAddress, $0.count, &from.raw, timeoutMilliseconds, &age) }
        guard n >= 0 else {
            if errno == EINTR { return nil }
            throw ClockLaneError("clock lane: receiving a datagram")
        }
        guard n > 0 else { return nil }
        bytes.removeLast(bytes.count - min(n, bytes.count))
        // A stamp from the future or from long ago says the wall clock was stepped between
        // the kernel's stamp and ours: then the stamp is worth nothing.
        let plausible = age >= 0 && age < 1_000_000_000
        return StampedDatagram(bytes: bytes, from: from, ageNanoseconds: plausible ? age : nil)
    }

    /// The receiving thread's loop: hands every datagram up to `capacity` bytes, with the
    /// instant `clock` gives its arrival (its argument is the kernel stamp's age), to
    /// `handle`, until `stopping` says so, then closes the socket. A failed receive ends
    /// the loop when `endOnFailure` (a socket that fails now fails again), else it is tried
    /// again a tenth of a second later.
    func receiveLoop(capacity: Int, endOnFailure: Bool, stopping: () -> Bool, clock: (Int64) -> Int64,
                     _ handle: (StampedDatagram, Int64) -> Void) {
        defer { close() }
        while !stopping() {
            let datagram: StampedDatagram?
            do {
                datagram = try receive(timeoutMilliseconds: 250, capacity: capacity)
            } catch {
                if endOnFailure { return }
                usleep(100_000)
                continue
            }
            guard let datagram else { continue }
            handle(datagram, clock(datagram.ageNanoseconds ?? 0))
        }
    }

    /// Closes the socket; sends after it fail, receives return nil. Only the receiving
    /// thread calls it, after its last receive.
    func close() {
        descriptor.withLockedValue { fd in
            if let open = fd { Glibc.close(open) }
            fd = nil
        }
    }
}
