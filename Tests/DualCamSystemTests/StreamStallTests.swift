import DualCamCore
import DualCamMedia
import Foundation
import Logging
import Testing
@testable import DualCamCoordinator

/// A stream to a real `ffmpeg -listen 1` RTMP receiver on loopback that stops reading
/// (SIGSTOP: a pulled cable or a hung server look the same from here). Over a switch with
/// a cable pulled for 20 s (tools/bench/live_out_netem.sh), the destination was shown as
/// live, at 0 kbit/s, for the whole cut.
@Suite struct StreamStallTests {
    static let now: @Sendable () -> Int64 = { Int64(DispatchTime.now().uptimeNanoseconds) }

    /// Key frames of noise, a few tens of kB each: they fill the sockets' buffers fast.
    static func noise(count: Int) throws -> (CodecParameters, [EncodedPacket]) {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: 320, height: 180, rate: .fps30, preset: "ultrafast",
                                                                      crf: 10, gopFrames: 1))
        var generator = SystemRandomNumberGenerator()
        var packets: [EncodedPacket] = []
        for k in 0..<count {
            var image = YUV420Image(width: 320, height: 180)
            for i in image.y.indices { image.y[i] = UInt8.random(in: 0...255, using: &generator) }
            packets += try encoder.encode(image, ptsNanoseconds: Int64(k) * 33_333_333, forceKeyframe: true)
        }
        packets += try encoder.flush()
        return (encoder.parameters, packets)
    }

    /// Packet `frame` of an endless programme made of `packets` over and over.
    static func packet(_ frame: Int64, of packets: [EncodedPacket]) -> EncodedPacket {
        var packet = packets[Int(frame) % packets.count]
        (packet.ptsNanoseconds, packet.dtsNanoseconds) = (frame * 33_333_333, frame * 33_333_333)
        return packet
    }

    /// An RTMP receiver that reads and discards, killed when the test ends.
    final class Receiver {
        let url = "rtmp://127.0.0.1:\(Int.random(in: 41_000...48_999))/live/key"
        let process = Process()

        init() throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            process.arguments = ["-hide_banner", "-loglevel", "quiet", "-listen", "1", "-i", url, "-f", "null", "-"]
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        func stopReading() { kill(process.processIdentifier, SIGSTOP) }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func aPeerThatStopsReadingFailsAWriteWithinTheTimeout() throws {
        let receiver = try Receiver()
        let (parameters, packets) = try Self.noise(count: 8)
        var output: LiveStreamOutput?
        let connecting = Self.now()
        while output == nil && Self.now() - connecting < 10_000_000_000 {
            output = try? LiveStreamOutput(url: receiver.url, shownAs: "rtmp://127.0.0.1/live/****", video: parameters, audio: nil,
                                           timeoutSeconds: 1, sendBufferBytes: 65_536, now: Self.now)
            if output == nil { usleep(200_000) }
        }
        let stream = try #require(output, "the receiver never took the connection")
        var frame: Int64 = 0
        for _ in 0..<30 {
            try stream.writeVideo(Self.packet(frame, of: packets))
            frame += 1
        }
        receiver.stopReading()
        let stopped = Self.now()
        var failure: (any Error)?
        // Without a limit this loop blocks for good; the peer is killed after 20 s (which
        // ends the write with EPIPE) so that the test fails instead of hanging.
        let killer = DispatchWorkItem { [pid = receiver.process.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: killer)
        defer { killer.cancel() }
        while failure == nil && Self.now() - stopped < 30_000_000_000 {
            do { try stream.writeVideo(Self.packet(frame, of: packets)) } catch { failure = error }
            frame += 1
        }
        let waited = Double(Self.now() - stopped) / 1e9
        #expect(failure != nil, "every write went through for \(waited) s to a peer that reads nothing")
        // The sockets' buffers take what they hold first; then one write waits 1 s at most.
        #expect(waited < 8, "the write failed \(waited) s after the peer stopped reading: \(String(describing: failure))")
        print(String(format: "a peer that stopped reading failed a write %.1f s later (limit 1 s a write): %@",
                     waited, String(describing: failure)))
    }

    @Test func aSenderWhoseWritesWaitShowsTheDestinationStalled() throws {
        let receiver = try Receiver()
        let (parameters, packets) = try Self.noise(count: 8)
        let destination = try StreamDestination(receiver.url)
        let sender = StreamSender(destination: destination, video: parameters, audio: nil, budgetBytes: 256 << 10,
                                  logger: Logger(label: "stall-test"))
        sender.start()
        defer { sender.stop() }
        var frame: Int64 = 0
        func offer(for nanoseconds: Int64, until done: () -> Bool = { false }) {
            let end = Self.now() + nanoseconds
            while Self.now() < end && !done() {
                sender.offer(Self.packet(frame, of: packets), audio: false)
                frame += 1
                usleep(33_333)
            }
        }
        offer(for: 10_000_000_000) { sender.liveStatus.state == .live }
        try #require(sender.liveStatus.state == .live, "never live: \(sender.record.events)")
        offer(for: 1_000_000_000)
        #expect(sender.liveStatus.state == .live)
        receiver.stopReading()
        let stopped = Self.now()
        offer(for: 8_000_000_000) { sender.liveStatus.state == .stalled }
        let status = sender.liveStatus
        #expect(status.state == .stalled && status.kbps == 0, "\(status)")
        print(String(format: "a receiver that stopped reading showed as stalled %.1f s later", Double(Self.now() - stopped) / 1e9))
    }
}
