import DualCamProtocol
import Foundation
import Testing
@testable import DualCamCoordinator

/// The manifest's clock figures are the take's: reports from before StartAt (the clock
/// converging, its bound hundreds of microseconds wide) are not counted.
@Suite(.serialized) struct ClockOverSessionTests {
    let out = NSTemporaryDirectory() + "dualcam-clock-history-\(getpid())"

    static func status(bound: Int64, locked: Bool) -> CoordinatorEvent {
        var s = Dualcam_V1_ClockStatus()
        s.state = locked ? .clockLocked : .clockConverging
        s.errorBoundNs = bound
        s.roundTripNs = 2_000_000
        return .clockStatus(s)
    }

    @Test func onlyReportsFromStartAtOnCount() throws {
        defer { try? FileManager.default.removeItem(atPath: out) }
        let fixture = TakeFixture(out: out, agents: ["pi-a", "pi-b"]) { $0.width = 320; $0.height = 240 }
        let take = fixture.take
        for bound in [900_000, 600_000, 300_000] as [Int64] {
            try take.handle(Self.status(bound: bound, locked: false), from: 0, now: 0)
        }
        fixture.prepare(at: 1_000_000)
        for i in 0..<2 { try take.handle(TakeFixture.ready(take), from: i, now: 2_000_000) }
        #expect(take.machine.phase.name == "counting down")
        #expect(take.agents.allSatisfy { $0.clockHistory.reports == 0 })
        for _ in 0..<10 { try take.handle(Self.status(bound: 40_000, locked: true), from: 0, now: 3_000_000) }
        #expect(take.agents[0].clockHistory.reports == 10)
        #expect(take.agents[0].clockHistory.unlockedReports == 0)
        #expect(take.agents[0].clockHistory.errorBound.maxNanoseconds <= 41_000)
        // Lost, it reports nothing until it is back; a report crossing the loss is not the take's.
        take.lost(0, reason: "cut", now: 4_000_000)
        try take.handle(Self.status(bound: 40_000, locked: true), from: 0, now: 4_100_000)
        #expect(take.agents[0].clockHistory.reports == 10)
    }
}
