#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DualCamTestSupport
import Foundation
import NIOCore
import Testing
@testable import DualCamProtocol

/// Random and mutated frames through the decoder and both state machines: nothing may
/// crash (Swift traps on overflow and bad indices, so a crash would be a trap), hang, or
/// make the decoder wait for more than one maximum frame.
///
/// The suite's run is the short version: 250,000 inputs from a seed of its own each run
/// (printed first, so that a crash can be replayed), so that the runs together cover more
/// than one fixed long run would. `tools/bench/fuzz.sh` is the long run (10^7 by default).
/// DUALCAM_FUZZ_ITERATIONS overrides the count; DUALCAM_FUZZ_SEED the seed.
@Suite(.serialized) struct FuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["DUALCAM_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 250_000
    static let seed = ProcessInfo.processInfo.environment["DUALCAM_FUZZ_SEED"].flatMap(UInt64.init)
        ?? UInt64(truncatingIfNeeded: Date().timeIntervalSince1970.bitPattern)

    /// Valid frames of every message kind, the seeds for mutation.
    static func corpus() throws -> [[UInt8]] {
        var bodies: [Dualcam_V1_Envelope.OneOf_Body] = [
            .hello(Envelopes.hello()), .helloAck(Envelopes.helloAck()),
            .prepare(Envelopes.prepare("s1")), .ready(Envelopes.ready("s1")),
            .startAt(Envelopes.startAt("s1")), .stop(Envelopes.stop("s1")),
            .segmentOffer(Envelopes.offer("s1", index: 0, size: 300)),
            .segmentData(Envelopes.data("s1", index: 0, offset: 0, count: 100, size: 300)),
            .segmentData(Envelopes.data("s1", index: 0, offset: 100, count: 200, size: 300)),
            .segmentAck(Envelopes.ack("s1", index: 0, received: 300, durable: true)),
            .segmentRequest(Envelopes.request("s1", index: 0, offset: 10)),
            .recordingFinished(Envelopes.finished("s1", segments: 1)),
            .keepalive(.init()), .shutdown(.init()), .clockStatus(.init()), .telemetry(.init()),
        ]
        var ping = Dualcam_V1_ClockPing()
        ping.id = 1
        ping.t1Ns = 42
        var pong = Dualcam_V1_ClockPong()
        pong.id = 1
        pong.t1Ns = 42
        var error = Dualcam_V1_Error()
        error.code = .errorDiskFull
        error.message = "full"
        bodies += [.clockPing(ping), .clockPong(pong), .error(error)]
        return try bodies.enumerated().map { i, b in
            try EnvelopeFraming.encode(Envelopes.envelope(b, sequence: UInt64(i + 1)))
        }
    }

    static func mutate(_ frame: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var f = frame
        switch rng.below(8) {
        case 0:  // flip bits
            for _ in 0..<(1 + rng.below(4)) where !f.isEmpty { f[rng.below(f.count)] ^= UInt8(1) << rng.below(8) }
        case 1:  // overwrite bytes
            for _ in 0..<(1 + rng.below(4)) where !f.isEmpty { f[rng.below(f.count)] = rng.byte() }
        case 2:  // truncate
            f.removeLast(rng.below(f.count + 1))
        case 3:  // insert bytes
            f.insert(contentsOf: rng.bytes(1 + rng.below(8)), at: rng.below(f.count + 1))
        case 4:  // delete a run, keeping the prefix (so the body is inconsistent)
            if f.count > 5 {
                let start = 4 + rng.below(f.count - 4)
                f.removeSubrange(start..<min(f.count, start + 1 + rng.below(8)))
                let n = UInt32(f.count - 4)
                f.replaceSubrange(0..<4, with: [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)])
            }
        case 5:  // a random length prefix, including huge ones
            let n: UInt32 = rng.below(2) == 0 ? UInt32(truncatingIfNeeded: rng.next()) : UInt32(rng.below(WireProtocol.maxFrameBytes + 2))
            if f.count >= 4 { f.replaceSubrange(0..<4, with: [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]) }
        case 6:  // splice two frames' bodies
            if f.count > 6 { f.replaceSubrange(4..<(4 + rng.below(f.count - 4)), with: rng.bytes(rng.below(6))) }
        default:  // a valid prefix around random bytes
            let body = rng.bytes(1 + rng.below(48))
            let n = UInt32(body.count)
            f = [0, 0, UInt8(n >> 8), UInt8(truncatingIfNeeded: n)] + body
        }
        return f
    }

    /// Long-lived machines that fuzzed envelopes are fed to; rebuilt after they close.
    struct Machines {
        var agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: 0)
        var coordinator = CoordinatorConnectionStateMachine(configuration: .init(hello: Envelopes.hello()), now: 0)
        var sequence: UInt64 = 0
        var now: Int64 = 0
        var rebuilt = 0

        mutating func feed(_ envelope: Dualcam_V1_Envelope) {
            // Keep sequences increasing so that fuzzed bodies get past the sequence check
            // and reach the per-state rules.
            var e = envelope
            sequence += 1
            e.sequence = sequence
            now += 1_000_000
            if agent.state == .closed {
                agent = AgentConnectionStateMachine(configuration: .init(helloAck: Envelopes.helloAck()), now: now)
                _ = agent.receive(Envelopes.envelope(.hello(Envelopes.hello()), sequence: sequence), now: now)
                sequence += 1
                e.sequence = sequence
                rebuilt += 1
            }
            if coordinator.state == .closed {
                coordinator = CoordinatorConnectionStateMachine(configuration: .init(hello: Envelopes.hello()), now: now)
                _ = coordinator.start(now: now)
                _ = coordinator.receive(Envelopes.envelope(.helloAck(Envelopes.helloAck()), sequence: sequence), now: now)
                sequence += 1
                e.sequence = sequence
            }
            _ = agent.receive(e, now: now)
            _ = coordinator.receive(e, now: now)
            _ = agent.tick(now: now)
            _ = coordinator.tick(now: now)
        }
    }

    static func maxResidentBytes() -> Int {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
    }

    @Test func randomAndMutatedFrames() throws {
        let corpus = try Self.corpus()
        var rng = SplitMix64(seed: Self.seed)
        var machines = Machines()
        var decoded = 0
        var rejected = 0
        var waiting = 0
        let rssBefore = Self.maxResidentBytes()
        let started = ContinuousClock.now
        print("fuzz: \(Self.iterations) inputs from seed \(Self.seed) (replay: DUALCAM_FUZZ_SEED=\(Self.seed))")

        for i in 0..<Self.iterations {
            var bytes: [UInt8]
            switch rng.below(10) {
            case 0: bytes = rng.bytes(rng.below(40))  // pure noise
            case 1: bytes = corpus[rng.below(corpus.count)]  // valid
            case 2:  // several frames in one buffer, one of them mutated
                bytes = []
                let bad = rng.below(3)
                for j in 0..<3 {
                    let f = corpus[rng.below(corpus.count)]
                    bytes += j == bad ? Self.mutate(f, &rng) : f
                }
            default: bytes = Self.mutate(corpus[rng.below(corpus.count)], &rng)
            }

            var decoder = EnvelopeFrameDecoder()
            var buffer = ByteBuffer(bytes: bytes)
            do {
                while let envelope = try decoder.decode(buffer: &buffer) {
                    decoded += 1
                    machines.feed(envelope)
                }
                // Waiting for more: only ever for a frame within the limit.
                if let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) {
                    try #require(Int(length) <= WireProtocol.maxFrameBytes, "iteration \(i) of seed \(Self.seed) waits for \(length) bytes")
                    waiting += 1
                }
            } catch let error as ProtocolError {
                rejected += 1
                _ = error.wireError()
            }
        }

        let elapsed = ContinuousClock.now - started
        let rssGrowth = Self.maxResidentBytes() - rssBefore
        print("fuzz: \(Self.iterations) inputs (seed \(Self.seed)) in \(elapsed): \(decoded) envelopes decoded, \(rejected) inputs rejected, \(waiting) incomplete; \(machines.rebuilt) agent machines closed and rebuilt; max RSS grew \(rssGrowth / 1024) KiB")
        #expect(decoded > 0 && rejected > 0)
        // Peak RSS is process-wide, so suites running alongside count too (alone this loop
        // adds ~3 MiB). The failure guarded against is a decoder trusting a length prefix,
        // which would reserve up to 4 GiB; a frame's worth is never needed here.
        #expect(rssGrowth < 128 * 1024 * 1024)
    }

    @Test func randomChunkingOfAValidStreamDecodesIdentically() throws {
        var rng = SplitMix64(seed: Self.seed ^ 0x5EED)
        let envelopes = FrameDecoderTests.sampleEnvelopes(count: 300)
        let stream = try FrameDecoderTests.stream(envelopes)
        for _ in 0..<50 {
            var decoder = EnvelopeFrameDecoder()
            var buffer = ByteBuffer()
            var decoded: [Dualcam_V1_Envelope] = []
            var position = 0
            while position < stream.count {
                let n = min(stream.count - position, 1 + rng.below(3000))
                buffer.writeBytes(stream[position..<(position + n)])
                position += n
                while let e = try decoder.decode(buffer: &buffer) { decoded.append(e) }
            }
            #expect(decoded == envelopes)
        }
    }
}
