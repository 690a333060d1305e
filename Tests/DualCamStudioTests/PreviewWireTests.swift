import DualCamCoordinator
import Foundation
import NIOCore
import Testing
@testable import DualCamStudio

/// The preview's binary message (docs/STUDIO.md) and the limit on a viewer's key-frame asks.
@Suite struct PreviewWireTests {
    @Test func aMessageCarriesTheHeaderThenTheTraceThenThePicture() throws {
        var picture = PreviewHub.Picture(camera: 3, captureSharedNanoseconds: 1_000_000_007, keyframe: true, width: 640,
                                         height: 360, format: .h264, data: Data([0, 0, 0, 1, 0x67, 9]))
        picture.trace = PreviewHub.Trace(agentIndex: 42, agentSent: 1_004_000_000, hubReceived: 1_006_000_000)
        var buffer = PreviewMessage.encode(picture, written: 1_006_500_000, allocator: ByteBufferAllocator())
        #expect(buffer.readableBytes == 16 + 32 + 6)
        let kind = buffer.readInteger(as: UInt8.self)
        let flags = buffer.readInteger(as: UInt8.self)
        let camera = buffer.readInteger(as: UInt16.self)
        let capture = buffer.readInteger(as: Int64.self)
        let width = buffer.readInteger(as: UInt16.self)
        let height = buffer.readInteger(as: UInt16.self)
        let index = buffer.readInteger(as: UInt64.self)
        let sent = buffer.readInteger(as: Int64.self)
        let received = buffer.readInteger(as: Int64.self)
        let written = buffer.readInteger(as: Int64.self)
        let payload = buffer.readBytes(length: 6)
        #expect(kind == 1 && camera == 3 && capture == 1_000_000_007 && width == 640 && height == 360)
        #expect(flags == 0b11, "key frame, and a trace follows")
        #expect(index == 42 && sent == 1_004_000_000 && received == 1_006_000_000 && written == 1_006_500_000)
        #expect(payload == [0, 0, 0, 1, 0x67, 9])
    }

    @Test func keyFrameAsksAreLimitedPerCameraNotPerViewer() {
        var asks = KeyframeAsks()
        let t0: Int64 = 5_000_000_000
        let first = asks.allow(camera: 0, now: t0)
        // The other camera's decoder fell behind at the same moment: its ask goes too.
        let other = asks.allow(camera: 1, now: t0 + 1_000_000)
        let again = asks.allow(camera: 0, now: t0 + 249_000_000)
        let later = asks.allow(camera: 0, now: t0 + 250_000_000)
        let negative = asks.allow(camera: -1, now: t0)
        let beyond = asks.allow(camera: PreviewHub.maxCameras, now: t0)
        #expect(first && other)
        #expect(!again, "a second ask within 250 ms makes no second IDR")
        #expect(later)
        #expect(!negative && !beyond, "a camera index no rig has is ignored")
    }
}
