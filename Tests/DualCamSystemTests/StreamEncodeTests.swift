import DualCamCore
import DualCamMedia
import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import DualCamCoordinator

/// The streams' own encode (`--stream-size`): the programme scaled to the streams' size,
/// key frames every 2 s, and when it cannot keep up the newest picture wins, in order.
@Suite struct StreamEncodeTests {
    static func plan() throws -> TakePlan {
        var plan = TakePlan(agents: [], outputDirectory: "/tmp", durationSeconds: nil)
        (plan.width, plan.height) = (1280, 720)
        plan.streams = [try StreamDestination("rtmp://127.0.0.1/live/key")]
        plan.streamSize = (640, 360)
        return plan
    }

    static func picture(_ n: Int) -> YUV420Image {
        var picture = YUV420Image(width: 1280, height: 720)
        for i in stride(from: 0, to: picture.y.count, by: 7) { picture.y[i] = UInt8(truncatingIfNeeded: 16 + n * 5 + i % 200) }
        return picture
    }

    @Test func theStreamsGetTheirOwnSizeAndTwoSecondKeyFrames() throws {
        let plan = try Self.plan()
        #expect(plan.streamsEncodedApart && plan.effectiveStreamBitrate == 1_500_000)
        let settings = LiveComposer.streamSettings(plan, filePreset: "medium")
        #expect(settings.preset == "veryfast" && settings.gopFrames == 60 && settings.maxBitrate == 1_500_000)
        #expect(LiveComposer.streamSettings(plan, filePreset: "ultrafast").preset == "ultrafast")
        var shared = plan
        shared.streamSize = (1280, 720)
        #expect(!shared.streamsEncodedApart && shared.effectiveStreamBitrate == 4_500_000)
        shared.streamSize = (1920, 1080)
        #expect(shared.streamsEncodedApart && shared.effectiveStreamBitrate == 6_000_000)
        let packets = NIOLockedValueBox<[EncodedPacket]>([])
        let encode = try StreamEncode(settings: settings) { p in packets.withLockedValue { $0.append(p) } }
        for n in 0..<90 {
            encode.offer(Self.picture(n), ptsNanoseconds: FrameRate.fps30.instant(ofFrame: Int64(n)))
            // One at a time: this test is about what is encoded, not what is dropped.
            let deadline = Date().addingTimeInterval(10)
            while encode.encodedPictures + encode.droppedPictures <= n && Date() < deadline { usleep(1000) }
        }
        encode.finish()
        let got = packets.withLockedValue { $0 }
        #expect(encode.droppedPictures == 0 && got.count == 90)
        #expect(got.map(\.ptsNanoseconds) == (0..<90).map { FrameRate.fps30.instant(ofFrame: Int64($0)) })
        #expect(got.indices.filter { got[$0].isKeyframe } == [0, 60])
        let decoder = try VideoDecoder(parameters: encode.parameters)
        let frames = try decoder.decode(got[0])
        #expect(frames.first?.image.width == 640 && frames.first?.image.height == 360)
    }

    @Test func aFloodKeepsTheNewestInOrder() throws {
        let packets = NIOLockedValueBox<[EncodedPacket]>([])
        let encode = try StreamEncode(settings: LiveComposer.streamSettings(try Self.plan(), filePreset: "medium")) { p in packets.withLockedValue { $0.append(p) } }
        let pictures = (0..<4).map(Self.picture)
        for n in 0..<120 { encode.offer(pictures[n % 4], ptsNanoseconds: FrameRate.fps30.instant(ofFrame: Int64(n))) }
        encode.finish()
        let got = packets.withLockedValue { $0 }
        #expect(encode.droppedPictures > 0, "120 pictures offered at once were all encoded")
        #expect(encode.encodedPictures + encode.droppedPictures == 120)
        #expect(got.count == encode.encodedPictures)
        #expect(zip(got, got.dropFirst()).allSatisfy { $0.ptsNanoseconds < $1.ptsNanoseconds })
        #expect(got.last?.ptsNanoseconds == FrameRate.fps30.instant(ofFrame: 119), "the last picture offered is sent")
        // After finish nothing more is taken.
        encode.offer(Self.picture(0), ptsNanoseconds: 0)
        #expect(encode.encodedPictures + encode.droppedPictures == 120)
    }

    /// Before the take, the streams' preset is measured at their size, the file's whole
    /// frame counted on each (real FFmpeg, a 640x360 take streamed at 320x180): the choice
    /// is the core's rule applied to what was measured, and the log says so. A take
    /// streaming at its own size measures no second encode.
    @Test func theStreamsPresetIsMeasuredWithTheFilesFrame() throws {
        MediaLog.setQuiet()
        var plan = try Self.plan()
        (plan.width, plan.height) = (640, 360)
        plan.streamSize = (320, 180)
        plan.layout = LayoutSpec(kind: .grid)
        let measured = try CompositeProbe.measure(plan: plan, cameras: 2)
        #expect(measured.streamSpeeds.first?.preset == "ultrafast" && measured.streamSize == "320x180")
        #expect(measured.streamOutcome == PresetChoice.choose(measured.streamSpeeds, rate: plan.rate))
        let text = try #require(measured.streamsText)
        #expect(text.hasPrefix("the streams' own encode at 320x180: \(try #require(measured.streamPreset))"), "\(text)")
        #expect(CompositeProbe.key(plan: plan, cameras: 2).hasSuffix("streams 320x180 1500000"))
        print("STREAM-PROBE: \(measured.summary)")
        plan.streamSize = (640, 360)
        let shared = try CompositeProbe.measure(plan: plan, cameras: 2)
        #expect(shared.streamSpeeds.isEmpty && shared.streamOutcome == nil && shared.streamsText == nil)
    }
}
