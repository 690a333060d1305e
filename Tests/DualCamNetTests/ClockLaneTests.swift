import Crypto
import DualCamCore
@testable import DualCamNet
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// The clock lane (§20) over real UDP on loopback: kernel stamps that fall where they
/// must on the clock, and a server that answers nothing it should not.
@Suite(.serialized) struct ClockLaneTests {
    static let now: @Sendable (Int64) -> Int64 = { ago in MonotonicTime.now() - ago }

    @Test func aPacketRoundTripsAndAnyChangeIsRefused() throws {
        let key = SymmetricKey(size: .bits256)
        let pong = ClockLanePacket(kind: .pong, laneID: 0xDEAD_BEEF_0000_0001, pingID: 7, t2: -5, t3: 1 << 62)
        let bytes = pong.encoded(key: key)
        #expect(bytes.count == ClockLanePacket.length)
        #expect(ClockLanePacket.decode(bytes, key: key) == pong)
        #expect(ClockLanePacket.decode(bytes, key: SymmetricKey(size: .bits256)) == nil, "another key")
        for i in bytes.indices {
            var flipped = bytes
            flipped[i] ^= 0x01
            #expect(ClockLanePacket.decode(flipped, key: key) == nil, "byte \(i) changed")
        }
        #expect(ClockLanePacket.decode(Array(bytes.dropLast()), key: key) == nil)
        #expect(ClockLanePacket.decode(bytes + [0], key: key) == nil)
        #expect(ClockLanePacket.decode([], key: key) == nil)
    }

    @Test func anExchangeIsStampedByTheKernelInOrder() async throws {
        let server = try ClockLaneServer(localIP: "127.0.0.1", peerIP: "127.0.0.1", clock: Self.now)
        defer { server.stop() }
        let samples = NIOLockedValueBox<[ClockSample]>([])
        let client = try ClockLaneClient(terms: server.terms, localIP: "127.0.0.1", coordinatorIP: "127.0.0.1",
                                         clock: Self.now, onSample: { s in samples.withLockedValue { $0.append(s) } })
        defer { client.stop() }
        #expect(!client.isAnswering)
        for _ in 0..<20 {
            try client.ping()
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        try await waitFor { samples.withLockedValue { $0.count } >= 18 }
        #expect(client.isAnswering)
        // One clock on both ends: the kernel's receive stamps must fall between the send
        // and the next user-space reading, or the age conversion put them elsewhere.
        for s in samples.withLockedValue({ $0 }) {
            #expect(s.t1 < s.t2 && s.t2 <= s.t3 && s.t3 < s.t4, "\(s)")
            #expect(s.delayNanoseconds < 5_000_000)
            #expect(abs(s.offsetNanoseconds) < 1_000_000)
        }
        #expect(server.counts.answered >= 18)
        #expect(server.counts.refused == 0)
    }

    @Test func theServerAnswersNoForgeryReplayOrFlood() async throws {
        let server = try ClockLaneServer(localIP: "127.0.0.1", peerIP: "127.0.0.1", clock: Self.now)
        defer { server.stop() }
        let attacker = try StampedUDPSocket(localIP: "127.0.0.1")
        defer { attacker.close() }
        let lane = try #require(UDPPeer(ip: "127.0.0.1", port: server.terms.port))
        let terms = server.terms
        func ping(_ id: UInt64, key: SymmetricKey = terms.key, lane laneID: UInt64 = terms.laneID) -> [UInt8] {
            ClockLanePacket(kind: .ping, laneID: laneID, pingID: id).encoded(key: key)
        }
        func answers(within milliseconds: Int32 = 300) throws -> [[UInt8]] {
            var got: [[UInt8]] = []
            while let d = try attacker.receive(timeoutMilliseconds: milliseconds, capacity: 4096) { got.append(d.bytes) }
            return got
        }
        // Unsigned, wrongly signed, another lane, a pong, oversized, empty: nothing.
        try attacker.send(ping(1, key: SymmetricKey(size: .bits256)), to: lane)
        try attacker.send(ping(2, lane: terms.laneID &+ 1), to: lane)
        try attacker.send(ClockLanePacket(kind: .pong, laneID: terms.laneID, pingID: 3).encoded(key: terms.key), to: lane)
        try attacker.send(ping(4) + [UInt8](repeating: 0, count: 1000), to: lane)
        try attacker.send([UInt8](repeating: 0x41, count: 56), to: lane)
        #expect(try answers().isEmpty)
        #expect(server.counts.refused == 5)

        // A good ping is answered with a pong no larger than itself; its replay is not.
        let good = ping(10)
        try attacker.send(good, to: lane)
        let first = try answers()
        #expect(first.count == 1)
        #expect(first.first?.count == good.count)
        #expect(first.first.flatMap { ClockLanePacket.decode($0, key: terms.key) }?.pingID == 10)
        try attacker.send(good, to: lane)
        try attacker.send(ping(9), to: lane)
        #expect(try answers().isEmpty, "a replayed or older ping id")

        // A burst of 200 good pings gets at most one answer per spacing.
        let start = MonotonicTime.now()
        for id in UInt64(100)..<300 { try attacker.send(ping(id), to: lane) }
        let spacings = (MonotonicTime.now() - start) / ClockLaneServer.minimumSpacingNanoseconds + 1
        let burst = try answers()
        #expect(burst.count >= 1)
        #expect(Int64(burst.count) <= spacings, "\(burst.count) answers in \(spacings) spacings")
    }

    @Test func theClientCompletesOnlyItsOwnPings() async throws {
        // A "coordinator" played by the test: it answers with a wrong key, an unknown id,
        // then properly; only the proper answer makes a sample.
        let coordinator = try StampedUDPSocket(localIP: "127.0.0.1")
        defer { coordinator.close() }
        let terms = ClockLaneTerms.fresh(port: coordinator.port)
        let samples = NIOLockedValueBox<[ClockSample]>([])
        let client = try ClockLaneClient(terms: terms, localIP: "127.0.0.1", coordinatorIP: "127.0.0.1",
                                         clock: Self.now, onSample: { s in samples.withLockedValue { $0.append(s) } })
        defer { client.stop() }
        try client.ping()
        let received = try #require(try coordinator.receive(timeoutMilliseconds: 2000, capacity: 64))
        let ping = try #require(ClockLanePacket.decode(received.bytes, key: terms.key))
        #expect(ping.kind == .ping && ping.pingID == 1)
        let now = MonotonicTime.now()
        func pong(_ id: UInt64, key: SymmetricKey = terms.key) -> [UInt8] {
            ClockLanePacket(kind: .pong, laneID: terms.laneID, pingID: id, t2: now, t3: now).encoded(key: key)
        }
        try coordinator.send(pong(1, key: SymmetricKey(size: .bits256)), to: received.from)
        try coordinator.send(pong(2), to: received.from)
        // A proper answer from another port of the coordinator's address is not the lane's.
        let elsewhere = try StampedUDPSocket(localIP: "127.0.0.1")
        defer { elsewhere.close() }
        try elsewhere.send(pong(1), to: received.from)
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(samples.withLockedValue { $0.isEmpty })
        #expect(client.refused == 3)
        try coordinator.send(pong(1), to: received.from)
        try await waitFor { samples.withLockedValue { $0.count } == 1 }
        try coordinator.send(pong(1), to: received.from)
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(samples.withLockedValue { $0.count } == 1, "an answer to a ping already answered")
    }

    /// Clock datagrams must not queue behind video: DSCP EF on the wire, and the priority
    /// that puts them in the qdisc's first band and Wi-Fi's voice access category.
    @Test func itsDatagramsAreMarkedUrgent() throws {
        let v4 = try StampedUDPSocket(localIP: "127.0.0.1")
        defer { v4.close() }
        let marks = try #require(v4.marks)
        #expect(marks.trafficClass == 46 << 2)
        #expect(marks.priority == 6)
        // IPv6 where the machine has it (some containers turn it off).
        if let v6 = try? StampedUDPSocket(localIP: "::1") {
            defer { v6.close() }
            #expect(v6.marks?.trafficClass == 46 << 2)
            #expect(v6.marks?.priority == 6)
        }
        v4.close()
        #expect(v4.marks == nil)
    }

    /// A connection over IPv6 link-local addresses (what mDNS often resolves on a rig with
    /// no DHCP) gets its lane too: the sockets need the connection's interface, which
    /// `SocketAddress.ipv6ScopeID` carries. On a veth pair of its own, as root.
    @Test(.enabled(if: getuid() == 0, "needs root to make an interface"))
    func aLinkLocalConnectionGetsItsLane() async throws {
        let name = "dcll\(getpid() % 10000)"
        func ip(_ arguments: String...) throws -> Int32 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            p.arguments = arguments
            try p.run()
            p.waitUntilExit()
            return p.terminationStatus
        }
        try #require(try ip("link", "add", name, "type", "veth", "peer", "name", name + "p") == 0)
        defer { _ = try? ip("link", "del", name) }
        #expect(try ip("-6", "addr", "add", "fe80::dc:1/64", "dev", name, "nodad") == 0)
        #expect(try ip("link", "set", name + "p", "up") == 0)
        #expect(try ip("link", "set", name, "up") == 0)
        let scope = if_nametoindex(name)
        #expect(scope > 0)
        let address = try SocketAddress(ipAddress: "fe80::dc:1", port: 0)
        #expect(address.ipv6ScopeID == 0, "a bare address has no interface")
        #expect(try SocketAddress(ipAddress: "10.0.0.1", port: 0).ipv6ScopeID == 0)
        // Without the interface the kernel cannot bind a link-local address.
        #expect(throws: ClockLaneError.self) { try ClockLaneServer(localIP: "fe80::dc:1", peerIP: "fe80::dc:1", clock: Self.now) }
        let server = try ClockLaneServer(localIP: "fe80::dc:1", peerIP: "fe80::dc:1", scopeID: scope, clock: Self.now)
        defer { server.stop() }
        let samples = NIOLockedValueBox<[ClockSample]>([])
        let client = try ClockLaneClient(terms: server.terms, localIP: "fe80::dc:1", coordinatorIP: "fe80::dc:1", scopeID: scope,
                                         clock: Self.now, onSample: { s in samples.withLockedValue { $0.append(s) } })
        defer { client.stop() }
        try client.ping()
        try await waitFor { samples.withLockedValue { $0.count } == 1 }
        #expect(server.counts.answered == 1)
    }

    private func waitFor(_ condition: @Sendable () -> Bool) async throws {
        for _ in 0..<300 where !condition() { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(condition())
    }
}
