@testable import DualCamAgent
import DualCamCore
import Foundation
import Testing

/// What the agent reports each second, from the pipeline's counters.
struct TelemetryReporterTests {
    /// Before the first clock exchange the bound is unknown: it went out as -1, which the
    /// coordinator refuses as a bad message, closing the connection (seen with the studio
    /// watching the preview as an agent connected). It is 0 until there is an estimate.
    @Test func aReportBeforeAnyClockEstimateIsNeverNegative() {
        let clock = AgentClock(simulatedError: .none)
        let reporter = TelemetryReporter(stats: PipelineStats(), clock: clock, spoolPath: NSTemporaryDirectory(),
                                         countsAcknowledgements: false)
        #expect(clock.estimate == nil)
        #expect(reporter.sample().message.clockErrorBoundNs == 0)
    }

    @Test func aSampleCarriesRatesLossesQueueAndWhatTheCoordinatorStillNeeds() throws {
        let stats = PipelineStats()
        let clock = AgentClock(standaloneWith: .none)
        let reporter = TelemetryReporter(stats: stats, clock: clock, spoolPath: NSTemporaryDirectory(), countsAcknowledgements: true)
        stats.update {
            $0.captured = 30
            $0.encoded = 29
            $0.sourceDrops = 2
            $0.backlogDrops = 1
            $0.beforeKeyframeDrops = 4
            $0.queueDepth = 3
            $0.encodeLatencyNanoseconds = 12_500_000
            $0.segments = 5
            $0.acknowledged = [0, 1, 3]
        }
        Thread.sleep(forTimeInterval: 0.2)
        let sample = reporter.sample()
        let t = sample.message
        #expect(t.captureFps > 30 && t.captureFps < 30 / 0.19, "\(t.captureFps)")
        #expect(t.encodedFps < t.captureFps)
        #expect(t.framesDropped == 7)
        #expect(t.queueDepth == 3)
        #expect(abs(t.encodeLatencyMs - 12.5) < 1e-9)
        #expect(t.segmentsPending == 2)
        #expect(t.freeDiskBytes > 0)
        #expect(t.clockErrorBoundNs == 0)
        for part in ["dropped 7 (source 2, encoder backlog 1)", "4 before the first keyframe", "5 segments (2 not yet held by the coordinator)",
                     "queue 3", "encode latency 12.5 ms", "disk free"] {
            #expect(sample.line.contains(part), "\(part) not in: \(sample.line)")
        }
        // Rates are per interval: nothing new since the last sample is 0 fps.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(reporter.sample().message.captureFps == 0)
    }

    /// The reporter starts before T0 (the countdown's remainder): the first second's rate
    /// counts from the first frame, or a 30 fps camera shows 15 fps in the first line.
    @Test func theFirstRatesCountFromTheFirstFrame() {
        let stats = PipelineStats()
        let clock = AgentClock(standaloneWith: .none)
        let reporter = TelemetryReporter(stats: stats, clock: clock, spoolPath: NSTemporaryDirectory(), countsAcknowledgements: false)
        Thread.sleep(forTimeInterval: 0.3)
        // 6 frames at 30 fps, the first captured 0.167 s ago (its interval began a period earlier).
        let first = clock.localNow() - 166_666_667
        stats.update {
            $0.captured = 6
            $0.encoded = 6
            $0.capturingSinceLocal = first - 33_333_333
        }
        let t = reporter.sample().message
        #expect(t.captureFps > 25 && t.captureFps <= 30.5, "\(t.captureFps) fps")
        #expect(t.encodedFps > 25 && t.encodedFps <= 30.5, "\(t.encodedFps) fps")
    }

    @Test func aLoneRecordingReportsNoPendingSegments() {
        let stats = PipelineStats()
        let reporter = TelemetryReporter(stats: stats, clock: AgentClock(standaloneWith: .none), spoolPath: NSTemporaryDirectory(),
                                         countsAcknowledgements: false)
        stats.update { $0.segments = 4 }
        let sample = reporter.sample()
        #expect(sample.message.segmentsPending == 0)
        #expect(!sample.line.contains("coordinator"))
    }

    @Test func throttleBitsAreNamed() {
        #expect(SystemHealth.describeThrottle(0x50005) == "under-voltage now, throttled now, under-voltage has occurred, throttling has occurred")
    }
}
