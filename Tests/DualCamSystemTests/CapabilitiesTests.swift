import DualCamAgent
import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation
import Testing

/// An agent tells the coordinator the most its source delivers, so that presets ask no
/// camera for more; a pipe's producer is fixed, so a Prepare cannot change its rate.
@Suite struct CapabilitiesTests {
    func helloAck(from defaults: RecordingSettings) async throws -> Dualcam_V1_HelloAck {
        let state = NSTemporaryDirectory() + "dualcam-coord-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let identity = try DeviceIdentity.loadOrCreate(in: state, commonName: "dualcam-coordinator")
        let agent = try await RunningAgent.start(name: "caps", trusting: [identity.deviceID], defaults: defaults)
        defer { Task { await agent.stop() } }
        let channel = try await TLSTransport.connect(host: "127.0.0.1", port: agent.port, identity: identity,
                                                     expectedPeer: agent.identity.deviceID, clock: { MonotonicTime.now() })
        return try await Exchange.first(on: channel, after: .hello(Exchange.hello())).helloAck
    }

    @Test func aPipeReportsExactlyWhatItsProducerWrites() async throws {
        var settings = RecordingSettings(width: 1280, height: 720, rate: .fps25)
        settings.source = .stdin(.yuv420p)
        settings.pipe = CaptureMode(width: 1280, height: 720, rate: .fps25)
        let caps = try await helloAck(from: settings).capabilities
        #expect((caps.maxWidth, caps.maxHeight, caps.maxFps) == (1280, 720, 25))
        #expect(caps.freeDiskBytes > 0)
    }

    @Test func theSyntheticSourceOffersFourKAtSixty() async throws {
        let caps = try await helloAck(from: RecordingSettings()).capabilities
        #expect((caps.maxWidth, caps.maxHeight, caps.maxFps) == (3840, 2160, 60))
    }

    @Test func aPrepareScalesAPipeButKeepsItsRate() {
        var settings = RecordingSettings(width: 1280, height: 720, rate: .fps25)
        settings.source = .stdin(.yuv420p)
        settings.pipe = CaptureMode(width: 1280, height: 720, rate: .fps25)
        let merged = settings.merged(with: Dualcam_V1_VideoSettings(width: 1920, height: 1080, rate: .fps60, encoder: "libx264",
                                                                    preset: "veryfast", crf: 23, bitrate: nil,
                                                                    segmentMilliseconds: 2000, genlock: true))
        #expect((merged.width, merged.height) == (1920, 1080))
        #expect(merged.rate == .fps25)
        #expect(merged.pipe == CaptureMode(width: 1280, height: 720, rate: .fps25))
    }

    /// `run --free-run` is the node's camera behaviour: a session asking for genlocked
    /// sources does not override it, and a free-running session frees every source.
    @Test(arguments: [(true, true, true), (true, false, false), (false, true, false), (false, false, false)])
    func aSourceGenlocksOnlyWhenBothTheSessionAndTheAgentSaySo(session: Bool, agent: Bool, expected: Bool) {
        let settings = RecordingSettings(width: 1280, height: 720, genlock: agent)
        let merged = settings.merged(with: Dualcam_V1_VideoSettings(width: 1280, height: 720, rate: .fps30, encoder: "libx264",
                                                                    preset: "veryfast", crf: 23, bitrate: nil,
                                                                    segmentMilliseconds: 2000, genlock: session))
        #expect(merged.genlock == expected)
    }

    /// A take left on `auto` leaves the preset to the node: one its owner fixed holds, an
    /// automatic node measures; a take naming a preset (a rejoining agent's) wins.
    @Test(arguments: [("auto", "ultrafast", "ultrafast"), ("auto", "auto", "auto"), ("veryfast", "ultrafast", "veryfast"),
                      ("", "fast", "fast")])
    func aTakeOnAutoKeepsTheNodesOwnPreset(take: String, node: String, expected: String) {
        var settings = RecordingSettings(width: 1280, height: 720)
        settings.preset = node
        let merged = settings.merged(with: Dualcam_V1_VideoSettings(width: 1280, height: 720, rate: .fps30, encoder: "libx264",
                                                                    preset: take, crf: 23, bitrate: nil,
                                                                    segmentMilliseconds: 2000, genlock: true))
        #expect(merged.preset == expected)
    }
}
