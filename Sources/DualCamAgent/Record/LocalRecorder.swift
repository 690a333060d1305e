import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import Logging
import NIOConcurrencyHelpers

/// `dualcam-agent record`: the same capture → encode → segment pipeline as a coordinated
/// recording, on the node's own clock, ending at a duration, at the end of piped input
/// or on a signal; the segments are then joined into one MP4 by remuxing.
public struct LocalRecorder: Sendable {
    public let settings: RecordingSettings
    public let outputDirectory: String
    public let durationSeconds: Double?
    public let logger: Logger
    public let telemetrySeconds: Double

    public init(settings: RecordingSettings, outputDirectory: String, durationSeconds: Double?,
                telemetrySeconds: Double, logger: Logger) {
        self.settings = settings
        self.outputDirectory = outputDirectory
        self.durationSeconds = durationSeconds
        self.telemetrySeconds = telemetrySeconds
        self.logger = logger
    }

    public struct Result: Sendable {
        public var summary: RecordingSummary
        public var movie: String?
        public var segmentDirectory: String
        /// Why the segments could not be joined into one file, when they could not.
        public var joinError: String?
    }

    /// Records until the duration passes, the input ends or `stopRequested` fires.
    public func record(simulatedError: SimulatedClockError,
                       stopRequested: AsyncStream<Void>) async throws -> Result {
        try SpacePlan.check(settings: settings, seconds: durationSeconds, at: outputDirectory, logger: logger)
        let clock = AgentClock(standaloneWith: simulatedError)
        let sessionID = "local-" + SessionStamp.now()
        let spool = SegmentSpool(root: outputDirectory + "/segments")
        // An automatic preset is measured before the start, as at a coordinator's
        // Prepare, so the recording still holds the whole duration asked for. Not for a
        // pipe: its producer's frames count from the first, which the measurement would
        // hold back (raw ones start at the provisional preset, and the governor steps).
        var prepared: PreparedSource?
        var piped = false
        if case .stdin = settings.source { piped = true }
        if settings.isAutomaticPreset && !piped {
            let source = try PreparedSource(settings: settings, clock: clock)
            try await source.waitForFirstFrame(seconds: 10)
            do {
                if let result = try await Blocking.result({ try source.chooseAutomaticPreset() }) {
                    logger.notice("preset auto: \(result.summary)")
                }
            } catch {
                source.close()
                throw error
            }
            prepared = source
        }
        // Half a second ahead: a camera takes that long to open and stream (vivid under
        // emulation, ~0.4 s), and the recording should hold the whole duration asked
        // for. Piped frames count from the first one the producer sends.
        let lead: Int64 = if case .stdin = settings.source { 0 } else { 500_000_000 }
        // The synthetic pattern's T0 is on its frame grid, so its first frame falls
        // exactly at T0; other sources' frames fall where their clocks put them.
        // A lone node's own clock is its take's clock (`AgentClock(standaloneWith:)`).
        var t0 = SharedInstant(unsynchronised: clock.now + lead)
        if settings.source == .synthetic {
            t0 = SharedInstant(nanoseconds: settings.rate.instant(ofFrame: settings.rate.firstFrame(atOrAfter: t0.nanoseconds)))
        }
        let stop = durationSeconds.map { t0 + Int64($0 * 1e9) }
        let finished = AsyncStream.makeStream(of: RecordingSummary.self)
        let pipeline = RecordingPipeline(
            sessionID: sessionID, settings: settings, clock: clock, spool: spool, t0Shared: t0, stopShared: stop,
            onSegment: { _ in }, onFinish: { finished.continuation.yield($0); finished.continuation.finish() })
        pipeline.start(with: prepared)
        let reporter = TelemetryReporter(stats: pipeline.stats, clock: clock, spoolPath: spool.root,
                                         countsAcknowledgements: false)
        let telemetry = Task {
            while !Task.isCancelled {
                try await Task.sleep(nanoseconds: UInt64(telemetrySeconds * 1e9))
                logger.info("\(reporter.sample().line)")
            }
        }
        let stopper = Task {
            for await _ in stopRequested {
                logger.notice("stopping: finishing the current segment")
                pipeline.stop(atShared: SharedInstant(unsynchronised: clock.now))
                break
            }
        }
        var summary = RecordingSummary(segments: 0, framesCaptured: 0, framesDropped: 0)
        for await s in finished.stream { summary = s }
        telemetry.cancel()
        stopper.cancel()
        let segments = spool.segments(session: sessionID).sorted { $0.index < $1.index }
        var result = Result(summary: summary, movie: nil, segmentDirectory: spool.sessionDirectory(sessionID))
        guard !segments.isEmpty else { return result }
        let path = outputDirectory + "/\(sessionID).mp4"
        do {
            let parameters = try MediaDemuxer(path: segments[0].path).videoParameters
            let remuxer = try MP4Remuxer(outputPath: path, parameters: parameters,
                                         creationTimeUnixSeconds: Int64(Date().timeIntervalSince1970))
            for segment in segments { try remuxer.append(segmentAt: segment.path) }
            try remuxer.finish()
            result.movie = path
        } catch {
            // The segments are the recording; a joined file that could not be written
            // (the disk that stopped the recording is full) must not pass for one.
            try? FileManager.default.removeItem(atPath: path)
            result.joinError = "\(error)"
        }
        return result
    }
}

/// The UTC instant a local session started, as `yyyyMMdd-HHmmss`.
enum SessionStamp {
    static func now() -> String { text(unixSeconds: time(nil)) }

    /// By hand rather than with a DateFormatter, which loads ICU's calendar and locale
    /// data: 5 MB of the agent's resident memory for one string.
    static func text(unixSeconds: Int) -> String {
        var seconds = unixSeconds
        var utc = tm()
        gmtime_r(&seconds, &utc)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(utc.tm_year + 1900)" + two(utc.tm_mon + 1) + two(utc.tm_mday)
            + "-" + two(utc.tm_hour) + two(utc.tm_min) + two(utc.tm_sec)
    }
}
