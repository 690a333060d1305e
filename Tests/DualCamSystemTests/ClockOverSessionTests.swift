import DualCamNet
import DualCamProtocol
import Testing
@testable import DualCamCoordinator

/// The manifest's clock figures are the take's: reports from before StartAt (the clock
/// converging, its bound hundreds of microseconds wide) are not counted.
@Suite struct ClockOverSessionTests {
    static func status(bound: Int64, locked: Bool) -> Dualcam_V1_ClockStatus {
        var s = Dualcam_V1_ClockStatus()
        s.state = locked ? .clockLocked : .clockConverging
        s.errorBoundNs = bound
        s.roundTripNs = 2_000_000
        return s
    }

    @Test func onlyReportsFromStartAtOnCount() throws {
        let identity = try DeviceIdentity.generate(commonName: "clock-history")
        var tracker = AgentTracker(endpoint: AgentEndpoint(host: "127.0.0.1", port: 9000, deviceID: identity.deviceID))
        tracker.phase = .attached
        for bound in [900_000, 600_000, 300_000] as [Int64] { tracker.clock = Self.status(bound: bound, locked: false) }
        #expect(tracker.clockHistory.reports == 0)
        tracker.recording = true
        for _ in 0..<10 { tracker.clock = Self.status(bound: 40_000, locked: true) }
        #expect(tracker.clockHistory.reports == 10)
        #expect(tracker.clockHistory.unlockedReports == 0)
        #expect(tracker.clockHistory.errorBound.maxNanoseconds <= 41_000)
    }
}
