import Foundation
import NIOConcurrencyHelpers

/// The recordings under way in this process, so that SIGTERM (systemd stopping the
/// service) can end each at a segment boundary before the process exits.
enum ActiveRecordings {
    private static let pipelines = NIOLockedValueBox<[ObjectIdentifier: RecordingPipeline]>([:])

    static func add(_ pipeline: RecordingPipeline) {
        pipelines.withLockedValue { $0[ObjectIdentifier(pipeline)] = pipeline }
    }

    static func remove(_ pipeline: RecordingPipeline) {
        pipelines.withLockedValue { $0[ObjectIdentifier(pipeline)] = nil }
    }

    /// Stops every recording now and waits (up to `timeoutSeconds`) until each has
    /// closed its last segment. Returns how many were still running at the deadline.
    static func stopAll(timeoutSeconds: Double) async -> Int {
        let running = pipelines.withLockedValue { Array($0.values) }
        for pipeline in running { pipeline.stopNow() }
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        while Date() < deadline {
            if pipelines.withLockedValue({ $0.isEmpty }) { return 0 }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return pipelines.withLockedValue { $0.count }
    }
}
