import Foundation
import Testing
@testable import DualCamProtocol

/// The live preview's messages (§16): allowed in every phase after the handshake, in one
/// direction each, every field checked.
@Suite struct PreviewMessageTests {
    static func request(_ width: UInt32 = 640, _ height: UInt32 = 360, fps: UInt32 = 30,
                        bitrate: UInt32 = 1_000_000) -> Dualcam_V1_PreviewRequest {
        var r = Dualcam_V1_PreviewRequest()
        r.width = width
        r.height = height
        r.fps = fps
        r.bitrate = bitrate
        return r
    }

    static func frame(bytes: Int = 1000, width: UInt32 = 640, height: UInt32 = 360, at: Int64 = 5_000_000_000)
        -> Dualcam_V1_PreviewFrame
    {
        var f = Dualcam_V1_PreviewFrame()
        f.index = 1
        f.captureSharedNs = at
        f.keyframe = true
        f.width = width
        f.height = height
        f.h264 = Data(repeating: 7, count: bytes)
        return f
    }

    @Test func aRequestAndTheFramesItAsksForCrossAnIdleConnection() throws {
        var pair = MachinePair()
        try pair.connect()
        try pair.coordinatorSends(.previewRequest(Self.request()))
        try pair.pump()
        #expect(pair.agentEvents.contains(.previewRequest(Self.request())))
        try pair.agentSends(.previewFrame(Self.frame()))
        try pair.pump()
        #expect(pair.coordinatorEvents.contains(.previewFrame(Self.frame())))
        // Stopping is a request of width 0.
        try pair.coordinatorSends(.previewRequest(Dualcam_V1_PreviewRequest()))
        try pair.pump()
        #expect(pair.agentEvents.last == .previewRequest(Dualcam_V1_PreviewRequest()))
    }

    @Test(arguments: [(641, 360, 30, 1_000_000), (32, 32, 30, 1_000_000), (3840, 2160, 30, 1_000_000),
                      (640, 360, 0, 1_000_000), (640, 360, 120, 1_000_000), (640, 360, 30, 10)])
    func aRequestOutsideTheRangesIsRefused(size: (UInt32, UInt32, UInt32, UInt32)) {
        let r = Self.request(size.0, size.1, fps: size.2, bitrate: size.3)
        #expect(throws: ProtocolError.self) { try MessageValidation.checkPreviewRequest(r) }
        var agent = HostileInputTests().establishedAgent()
        let actions = agent.receive(Envelopes.envelope(.previewRequest(r), sequence: 2), now: 2)
        HostileInputTests().expectRefused(actions, agent, mentioning: "PreviewRequest")
    }

    @Test func framesTooLargeEmptyOrOffTheClockAreRefused() {
        let bad = [Self.frame(bytes: WireProtocol.maxPreviewFrameBytes + 1), Self.frame(bytes: 0),
                   Self.frame(width: 4000), Self.frame(at: -1), Self.frame(at: Int64.max)]
        for f in bad {
            #expect(throws: ProtocolError.self) { try MessageValidation.checkPreviewFrame(f) }
        }
        #expect(throws: Never.self) { try MessageValidation.checkPreviewFrame(Self.frame()) }
    }

    @Test func eachSideRefusesToSendTheOthersMessage() throws {
        var pair = MachinePair()
        try pair.connect()
        #expect(throws: ProtocolError.self) { try pair.agentSends(.previewRequest(Self.request())) }
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.previewFrame(Self.frame())) }
    }
}
