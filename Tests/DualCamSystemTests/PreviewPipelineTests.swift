@testable import DualCamAgent
@testable import DualCamCoordinator
import DualCamCore
import DualCamMedia
import DualCamProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The live preview from a synthetic camera to a viewer, real codecs all the way: the
/// agent's tap and encoder, the coordinator's hub, H.264 and JPEG viewers. The DCTC code
/// of each decoded picture must be the code of the captured frame it was made from.
@Suite(.serialized) struct PreviewPipelineTests {
    /// Captured frames through a tap into a streamer; what it delivers, in order.
    static func stream(frames count: Int, settings: PreviewSettings, refuse: Set<Int> = [])
        throws -> [PreviewStreamer.Picture]
    {
        let tap = PreviewTap()
        let delivered = NIOLockedValueBox<[PreviewStreamer.Picture]>([])
        let streamer = PreviewStreamer(tap: tap, deliver: { picture in
            delivered.withLockedValue { all in
                defer { all.append(picture) }
                return !refuse.contains(all.count)
            }
        }, onError: { Issue.record("preview: \($0)") })
        streamer.request(settings)
        defer { streamer.end() }
        let clock = AgentClock(standaloneWith: .none)
        var source = SyntheticSource(width: 1280, height: 720, rate: .fps30, genlock: false, clock: clock, startShared: nil)
        for _ in 0..<count {
            tap.offer(try #require(try source.next(stopLocalNanoseconds: { nil })))
            // The encoder takes each picture before the next: none is skipped for being busy.
            let deadline = Date().addingTimeInterval(2)
            let before = delivered.withLockedValue { $0.count }
            while delivered.withLockedValue({ $0.count }) == before && Date() < deadline { usleep(1000) }
        }
        return delivered.withLockedValue { $0 }
    }

    static func frame(_ p: PreviewStreamer.Picture) -> Dualcam_V1_PreviewFrame {
        var f = Dualcam_V1_PreviewFrame()
        f.index = p.index
        f.captureSharedNs = p.localCapture
        f.keyframe = p.keyframe
        f.width = UInt32(p.width)
        f.height = UInt32(p.height)
        f.h264 = Data(p.h264)
        return f
    }

    @Test func thePreviewIsSmallBaselineH264StartingWithAKeyFrameAndCarriesEachFramesCode() throws {
        let settings = PreviewSettings(width: 640, height: 360, fps: 30, bitrate: 1_000_000)
        let pictures = try Self.stream(frames: 40, settings: settings)
        #expect(pictures.count == 40)
        #expect(pictures.first?.keyframe == true)
        #expect(pictures.filter(\.keyframe).count == 2, "one key frame a second at 30 fps")
        let codec = try #require(H264Bitstream.codecString(pictures[0].h264))
        #expect(codec.hasPrefix("avc1.42"), "constrained baseline: \(codec)")
        let decoder = try VideoDecoder(parameters: CodecParameters(codecName: "h264", width: 640, height: 360, pixelFormat: nil))
        var checked = 0
        for p in pictures {
            for decoded in try decoder.decode(EncodedPacket(data: p.h264, ptsNanoseconds: p.localCapture,
                                                            dtsNanoseconds: p.localCapture, durationNanoseconds: 0,
                                                            isKeyframe: p.keyframe)) {
                #expect(decoded.image.width == 640 && decoded.image.height == 360)
                #expect(DCTC.read(decoded.image) == DCTC.code(trueNanoseconds: decoded.ptsNanoseconds))
                checked += 1
            }
        }
        #expect(checked >= 39, "zerolatency: a picture out per picture in (\(checked))")
    }

    @Test func aPictureTheLinkCouldNotTakeMakesTheNextOneAKeyFrame() throws {
        let settings = PreviewSettings(width: 320, height: 180, fps: 30, bitrate: 500_000)
        let pictures = try Self.stream(frames: 12, settings: settings, refuse: [5])
        #expect(pictures.count == 12)
        #expect(pictures.enumerated().filter { $0.element.keyframe }.map(\.offset) == [0, 6])
    }

    @Test func aViewerThatFallsBehindResumesAtAKeyFrameAndJPEGViewersGetWholePictures() async throws {
        let settings = PreviewSettings(width: 640, height: 360, fps: 30, bitrate: 1_000_000)
        let pictures = try Self.stream(frames: 45, settings: settings)
        let hub = PreviewHub()
        let slow = hub.watch(.h264)
        let jpeg = hub.watch(.jpeg)
        #expect(hub.isWatched)
        for p in pictures.prefix(20) { hub.receive(camera: 1, Self.frame(p)) }
        #expect(hub.codec(camera: 1)?.hasPrefix("avc1.42") == true)
        #expect(hub.takeKeyframeRequests().contains(1), "the slow viewer's gap asks the agent for a key frame")

        // The slow viewer read nothing while 20 came: it holds the first few, a valid chain
        // from the key frame; after them it resumes only at the next key frame (30).
        var got: [Int64] = []
        var iterator = slow.makeAsyncIterator()
        for _ in 0..<6 { got.append(try #require(await iterator.next()).captureSharedNanoseconds) }
        for p in pictures.dropFirst(20) { hub.receive(camera: 1, Self.frame(p)) }
        for _ in 0..<2 { got.append(try #require(await iterator.next()).captureSharedNanoseconds) }
        let stamps = pictures.map(\.localCapture)
        #expect(Array(got.prefix(6)) == Array(stamps.prefix(6)))
        #expect(got[6] == stamps[30] && got[7] == stamps[31])

        // JPEG: whole pictures, full size, the frame's code readable after decoding.
        var jpegs = jpeg.makeAsyncIterator()
        let first = try #require(await jpegs.next())
        #expect(first.format == .jpeg && first.keyframe)
        #expect(first.data.prefix(2) == Data([0xFF, 0xD8]))
        let decoder = try VideoDecoder(parameters: CodecParameters(codecName: "mjpeg", width: 0, height: 0, pixelFormat: nil))
        let image = try #require(try decoder.decode(EncodedPacket(data: [UInt8](first.data), ptsNanoseconds: 0, dtsNanoseconds: 0,
                                                                   durationNanoseconds: 0, isKeyframe: true)).first?.image)
        #expect(image.width == 640 && image.height == 360)
        // Full range now: the code's black and white cells sit at 0 and 255, not 16 and 235.
        #expect(DCTC.read(image) == DCTC.code(trueNanoseconds: first.captureSharedNanoseconds))
    }
}
