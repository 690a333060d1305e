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
                    let start = Date()
                    var sent = 0
                    while Date().timeIntervalSince(start) < ingestSeconds {
                        data.segmentData.offset = UInt64(sent)
                        try await outbound.write(data)
                        sent += chunk
                    }
                    var last = Dualcam_V1_Envelope()
                    last.segmentData.last = true
                    last.segmentData.sessionID = "bench"
                    try await outbound.write(last)
                    _ = try await iterator.next()  // the coordinator's count arrives once all is read
                    return (rtts, sent, Date().timeIntervalSince(start))
                }
            }
            throw TransportError("no connection")
        }
    }

    // The coordinator's end answers pings in its pipeline and counts payload bytes.
    let channel = try await TLSTransport.connect(host: "127.0.0.1", port: port, identity: coordinator,
                                                 expectedPeer: agent.deviceID, clock: { MonotonicTime.now() })
    let received = try await channel.executeThenClose { inbound, outbound in
        var hello = Dualcam_V1_Envelope()
        hello.hello = Dualcam_V1_Hello()
        try await outbound.write(hello)
        var bytes = 0
        for try await envelope in inbound {
            guard case .segmentData(let data)? = envelope.envelope.body else { continue }
            bytes += data.data.count
            if data.last { break }
        }
        var done = Dualcam_V1_Envelope()
        done.keepalive = Dualcam_V1_Keepalive()
        try await outbound.write(done)
        return bytes
    }
    let (rtts, sent, seconds) = try await agentSide.value
    server.channel.close(promise: nil)

    let sorted = rtts.sorted()
    func µs(_ q: Double) -> String { String(format: "%.0f µs", Double(sorted[Int(Double(sorted.count - 1) * q)]) / 1000) }
    print(String(format: "  %-58@ min %@, median %@, p90 %@, p99 %@   target: median ≤ 200 µs  %@",
                 "clock-sync round trip (\(pings) exchanges)" as NSString, µs(0) as NSString, µs(0.5) as NSString,
                 µs(0.9) as NSString, µs(0.99) as NSString,
                 (Double(sorted[sorted.count / 2]) <= 200_000 ? "ok" : "MISSED") as NSString))
    let mbps = Double(received) * 8 / seconds / 1e6
    print(String(format: "  %-58@ %.0f Mbit/s (%d MiB in %.1f s)   target: ≥ 800 Mbit/s  %@",
                 "segment ingest, 256 KiB SegmentData" as NSString, mbps, received >> 20, seconds,
                 (mbps >= 800 ? "ok" : "MISSED") as NSString))
    if received != sent { print("  warning: sent \(sent) bytes, received \(received)") }
    printOpenSSLCeiling()
}

/// The peer figure for ingest: what OpenSSL's AES-128-GCM (TLS 1.3's first cipher) does on
/// one core of this machine, the upper bound for any TLS transport here.
func printOpenSSLCeiling() {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "speed", "-seconds", "2", "-bytes", "16384", "-evp", "aes-128-gcm"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else {
        print("  (openssl CLI not found: no cipher ceiling to compare with)")
        return
    }
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("AES-128-GCM") || $0.hasPrefix("aes-128-gcm") }),
          let value = line.split(separator: " ").last, let kBps = Double(value.dropLast(value.hasSuffix("k") ? 1 : 0)) else {
        print("  (could not read `openssl speed` output)")
        return
    }
    print(String(format: "  %-58@ %.0f Mbit/s (openssl speed -evp aes-128-gcm, 16 KiB records, one core)",
                 "peer: OpenSSL cipher ceiling" as NSString, kBps * 1000 * 8 / 1e6))
}
