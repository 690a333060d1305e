import DualCamNet
import DualCamProtocol
import Foundation
import NIOCore

/// Times the transport on loopback, one TLS 1.3 connection, both ends in this process
/// (2 event loop threads): the clock-sync round trip as the estimator sees it (t4 − t1 −
/// (t3 − t2), stamps at the socket) and segment ingest (256 KiB SegmentData envelopes,
/// agent to coordinator, with the writer's backpressure). Targets of the protocol issue:
/// median round trip ≤ 200 µs, ingest ≥ 800 Mbit/s. Meaningful only in a release build.
func runNetBenchmarks() async throws {
    let agent = try DeviceIdentity.generate(commonName: "bench-agent")
    let coordinator = try DeviceIdentity.generate(commonName: "bench-coordinator")
    let pings = 2000
    let ingestSeconds = 5.0
    let chunk = 256 * 1024
    print("DualCamNet benchmarks, loopback, TLS 1.3, one connection")

    let server = try await TLSTransport.listen(
        host: "127.0.0.1", port: 0, identity: agent, policy: PeerPolicy(trusted: [coordinator.deviceID]),
        clock: { MonotonicTime.now() }, onRefused: { print("refused: \($0)") })
    guard let port = server.channel.localAddress?.port else { throw TransportError("no port") }

    // The agent's end: pings one at a time, then uploads for a fixed time.
    let agentSide = Task { () -> ([Int64], Int, Double) in
        try await server.executeThenClose { connections in
            for try await connection in connections {
                return try await connection.channel.executeThenClose { inbound, outbound in
                    var iterator = inbound.makeAsyncIterator()
                    _ = try await iterator.next()  // Hello
                    var rtts: [Int64] = []
                    for id in 1...pings {
                        var ping = Dualcam_V1_Envelope()
                        ping.clockPing.id = UInt64(id)
                        try await outbound.write(ping)
                        while let received = try await iterator.next() {
                            guard case .clockPong(let pong)? = received.envelope.body else { continue }
                            rtts.append(received.receivedAtNanoseconds - pong.t1Ns - (pong.t3Ns - pong.t2Ns))
                            break
                        }
                    }
                    var data = Dualcam_V1_Envelope()
                    data.segmentData.sessionID = "bench"
                    data.segmentData.data = Data(repeating: 0x5A, count: chunk)
                    // The upload window of PROTOCOL.md §8.3: at most 8 MiB unacknowledged,
                    // as the agent's uploader keeps it; without it the writer would queue
                    // whatever the loop produces.
                    let window = 8 << 20
                    let start = Date()
                    var sent = 0
                    var acknowledged = 0
                    while Date().timeIntervalSince(start) < ingestSeconds {
                        while sent - acknowledged + chunk > window, let reply = try await iterator.next() {
                            if case .segmentAck(let ack)? = reply.envelope.body { acknowledged = Int(ack.receivedBytes) }
                        }
                        data.segmentData.offset = UInt64(sent)
                        try await outbound.write(data)
                        sent += chunk
                    }
                    var last = Dualcam_V1_Envelope()
                    last.segmentData.last = true
                    last.segmentData.sessionID = "bench"
                    try await outbound.write(last)
                    // The coordinator answers once it has read everything.
                    while let reply = try await iterator.next() {
                        if case .keepalive(let k)? = reply.envelope.body, k.sentNs == -1 { break }
                    }
                    return (rtts, sent, Date().timeIntervalSince(start))
                }
            }
            throw TransportError("no connection")
        }
    }

    // The coordinator's end answers pings in its pipeline and counts payload bytes.
    let channel = try await TLSTransport.connect(host: "127.0.0.1", port: port, identity: coordinator,
                                                 expectedPeer: agent.deviceID, clock: { MonotonicTime.now() })
    let (received, receiving) = try await channel.executeThenClose { inbound, outbound in
        var hello = Dualcam_V1_Envelope()
        hello.hello = Dualcam_V1_Hello()
        try await outbound.write(hello)
        // As in a session, the coordinator keeps talking while it only receives, or the
        // agent would drop it as idle.
        let keepalive = EnvelopeWriter(outbound).keepalives()
        defer { keepalive.cancel() }
        var bytes = 0
        var first: Date?
        for try await envelope in inbound {
            guard case .segmentData(let data)? = envelope.envelope.body else { continue }
            if first == nil { first = Date() }
            bytes += data.data.count
            if data.last { break }
            var ack = Dualcam_V1_Envelope()
            ack.segmentAck.sessionID = "bench"
            ack.segmentAck.receivedBytes = UInt64(bytes)
            try await outbound.write(ack)
        }
        let seconds = Date().timeIntervalSince(first ?? Date())
        var done = Dualcam_V1_Envelope()
        done.keepalive.sentNs = -1
        try await outbound.write(done)
        return (bytes, seconds)
    }
    let (rtts, sent, _) = try await agentSide.value
    server.channel.close(promise: nil)

    let sorted = rtts.sorted()
    func µs(_ q: Double) -> String { String(format: "%.0f µs", Double(sorted[Int(Double(sorted.count - 1) * q)]) / 1000) }
    print(String(format: "  %-58@ min %@, median %@, p90 %@, p99 %@   target: median ≤ 200 µs  %@",
                 "clock-sync round trip (\(pings) exchanges)" as NSString, µs(0) as NSString, µs(0.5) as NSString,
                 µs(0.9) as NSString, µs(0.99) as NSString,
                 (Double(sorted[sorted.count / 2]) <= 200_000 ? "ok" : "MISSED") as NSString))
    let mbps = Double(received) * 8 / receiving / 1e6
    print(String(format: "  %-58@ %.0f Mbit/s (%d MiB in %.1f s)   target: ≥ 800 Mbit/s  %@",
                 "segment ingest, 256 KiB SegmentData" as NSString, mbps, received >> 20, receiving,
                 (mbps >= 800 ? "ok" : "MISSED") as NSString))
    if received != sent { print("  warning: sent \(sent) bytes, received \(received)") }
    printOpenSSLCeiling()
}

/// The peer figure for ingest: what OpenSSL's AES-128-GCM (TLS 1.3's first cipher) does on
/// one core of this machine, the upper bound for any TLS transport here.
func printOpenSSLCeiling() {
    // Through a file rather than a pipe: the measurement must not depend on how the
    // child's output is drained.
    let output = NSTemporaryDirectory() + "dualcam-bench-openssl-\(getpid()).txt"
    defer { try? FileManager.default.removeItem(atPath: output) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "timeout -s KILL 20 openssl speed -seconds 2 -bytes 16384 -evp aes-128-gcm > '\(output)' 2>/dev/null"]
    process.standardInput = FileHandle.nullDevice
    guard (try? process.run()) != nil else {
        print("  (cannot run /bin/sh: no cipher ceiling to compare with)")
        return
    }
    process.waitUntilExit()
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    guard process.terminationStatus == 0,
          let line = text.split(separator: "\n").last(where: { $0.uppercased().hasPrefix("AES-128-GCM") }),
          let value = line.split(separator: " ").last, let kBps = Double(value.hasSuffix("k") ? value.dropLast() : value) else {
        print("  (no `openssl speed` figure: is the openssl CLI installed?)")
        return
    }
    print(String(format: "  %-58@ %.0f Mbit/s (openssl speed -evp aes-128-gcm, 16 KiB records, one core)",
                 "peer: OpenSSL cipher ceiling" as NSString, kBps * 1000 * 8 / 1e6))
}
