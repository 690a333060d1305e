import Foundation
import Testing
@testable import DualCamCore

/// The estimator on a real path's exchanges. The fixtures are the host agent's clock logs
/// (`dualcam-agent run --clock-log`) from `tools/bench/clock-network.sh` (40 s takes in a
/// debug build; the asymmetric path's 60 s in a release build): the host agent and the coordinator ran in two network namespaces of one machine,
/// one kernel clock, joined by the jitter switch, so the true error of every estimate is
/// known to the nanosecond. Their fastest packets are much rarer than the switch's law
/// says (a clock datagram waits behind the video it shares the link with): 2.3 % of
/// one-way delays are under 120-180 µs where the law gives 45 µs.
@Suite struct ClockReplayTests {
    static func fixture(_ name: String) throws -> [ClockReplay.Row] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap(ClockReplay.Row.init(line:))
    }

    @Test func readsTheAgentsLogLines() {
        #expect(ClockReplay.Row(line: "lane 1 2 3 4") == ClockReplay.Row(path: .lane, sample: ClockSample(t1: 1, t2: 2, t3: 3, t4: 4)))
        #expect(ClockReplay.Row(line: "tls -5 2 3 4")?.path == .tls)
        let row = ClockReplay.Row(path: .tls, sample: ClockSample(t1: -5, t2: 69_469_453_667_462, t3: 3, t4: 4))
        #expect(row.line == "tls -5 69469453667462 3 4")
        #expect(ClockReplay.Row(line: row.line[...]) == row, "the agent's line reads back as itself")
        for bad in ["", "lane 1 2 3", "udp 1 2 3 4", "lane 1 2 x 4", "lane 1 2 3 4 5", "lane 1 2 3 99999999999999999999"] {
            #expect(ClockReplay.Row(line: bad[...]) == nil, "\(bad)")
        }
    }

    /// The replay feeds the estimator what the simulation fed it, and judges it the same.
    @Test func aSimulatedLogReplaysToTheSameEstimate() {
        var sim = ClockSimulation(seed: 5, offsetNanoseconds: 0, skewPPM: 0, jitter: .normal, configuration: .agent)
        sim.datagrams = true
        sim.delays.outlierFraction = 0
        sim.advance(to: sim.nextPoll + 20_000_000_000)
        let figures = ClockReplay().run(sim.log.map { ClockReplay.Row(path: .lane, sample: $0) }, sameClock: true)
        #expect(figures.exchanges == sim.log.count)
        #expect(figures.checks > 200)
        #expect(figures.boundBelowError == 0)
        #expect(figures.error.p99Nanoseconds <= 200_000)
        // A TLS answer while the lane answers is ignored, as the agent ignores it.
        var rows = sim.log.map { ClockReplay.Row(path: .lane, sample: $0) }
        rows.insert(ClockReplay.Row(path: .tls, sample: ClockSample(t1: rows[50].sample.t1, t2: 0, t3: 0, t4: rows[50].sample.t4)), at: 51)
        #expect(ClockReplay().run(rows, sameClock: true).fedOverTLS == 0)
    }

    /// A constant 0.3 ms more towards the coordinator: what no exchange can see costs half
    /// of it, 150 µs, and the bound, which must allow for it, still holds at every instant.
    @Test func theRealAsymmetricPathStaysInsideTheBound() throws {
        let f = ClockReplay().run(try Self.fixture("clock-asym-300us.log"), sameClock: true)
        #expect(f.checks > 1000)
        #expect(f.boundBelowError == 0, "\(f.boundBelowError) of \(f.checks) instants outside the bound")
        #expect(abs(f.meanSignedErrorNanoseconds - 150_000) <= 30_000, "mean error \(f.meanSignedErrorNanoseconds) ns")
        #expect(f.bound.p99Nanoseconds <= 2 * f.error.p99Nanoseconds, "bound p99 \(f.bound.p99Nanoseconds) ns against error p99 \(f.error.p99Nanoseconds) ns")
    }

    @Test(arguments: ["clock-lan-1ms.log", "clock-wifi-5ms.log"])
    func theRealPathsKeepTheIssuesFiguresInsideTheBound(log: String) throws {
        let rows = try Self.fixture(log)
        #expect(rows.count > 1000)
        let f = ClockReplay().run(rows, sameClock: true)
        print("clock replay | \(log) | error median \(f.error.p50Nanoseconds / 1000) µs, p99 \(f.error.p99Nanoseconds / 1000) µs, max \(f.error.maxNanoseconds / 1000) µs, mean \(Int(f.meanSignedErrorNanoseconds / 1000)) µs | bound median \(f.bound.p50Nanoseconds / 1000) µs, p99 \(f.bound.p99Nanoseconds / 1000) µs | locked after \((f.lockedAfterNanoseconds ?? -1) / 1_000_000) ms")
        #expect(f.stepsDetected == 0)
        #expect((f.lockedAfterNanoseconds ?? .max) <= 10_000_000_000)
        #expect(f.checks > 500)
        #expect(f.boundBelowError == 0, "\(f.boundBelowError) of \(f.checks) instants outside the bound")
        #expect(f.error.p50Nanoseconds <= 50_000)
        #expect(f.error.p99Nanoseconds <= 200_000)
    }
}
