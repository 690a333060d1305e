import DualCamCore
import NIOConcurrencyHelpers

/// The agent's recordings by session, kept apart from the connections that started them:
/// a recording goes on when its coordinator's connection is lost (PROTOCOL.md §8.6), and
/// whichever connection resumes the session next receives its new segments.
final class RecordingRegistry: Sendable {
    private struct Entry {
        /// Until the recording ends: then only its summary is kept (a pipeline holds its
        /// sound track's buffers and encoder, megabytes a take for as long as the agent runs).
        var pipeline: RecordingPipeline?
        var summary: RecordingSummary?
        var follower: AsyncStream<SpooledSegment>.Continuation?
        var followerToken: UInt64 = 0
    }
    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    private let tokens = NIOLockedValueBox<UInt64>(0)

    /// A pipeline for `sessionID`, not yet started, whose segments and end are routed
    /// through the registry.
    func makePipeline(sessionID: String, settings: RecordingSettings, clock: AgentClock, spool: SegmentSpool,
                      t0Shared: SharedInstant, stopShared: SharedInstant?) -> RecordingPipeline {
        let pipeline = RecordingPipeline(
            sessionID: sessionID, settings: settings, clock: clock, spool: spool, t0Shared: t0Shared, stopShared: stopShared,
            onSegment: { [self] segment in
                _ = entries.withLockedValue { $0[sessionID]?.follower?.yield(segment) }
            },
            onFinish: { [self] summary in
                let follower = entries.withLockedValue { all -> AsyncStream<SpooledSegment>.Continuation? in
                    all[sessionID]?.summary = summary
                    all[sessionID]?.pipeline = nil
                    return all[sessionID]?.follower
                }
                follower?.finish()
            })
        entries.withLockedValue { $0[sessionID] = Entry(pipeline: pipeline) }
        return pipeline
    }

    func pipeline(_ sessionID: String) -> RecordingPipeline? {
        entries.withLockedValue { $0[sessionID]?.pipeline }
    }

    /// This process started recording the session (it may have ended since).
    func knows(_ sessionID: String) -> Bool {
        entries.withLockedValue { $0[sessionID] != nil }
    }

    func summary(_ sessionID: String) -> RecordingSummary? {
        entries.withLockedValue { $0[sessionID]?.summary }
    }

    var recording: [String] {
        entries.withLockedValue { all in all.filter { $0.value.summary == nil }.map(\.key).sorted() }
    }

    /// The segments `sessionID` cuts from now on, ending when its recording ends, with the
    /// token that `unfollow` takes; nil when this process never recorded it. A previous
    /// follower (a connection lost or replaced) is ended: one connection at a time
    /// uploads a session.
    func follow(_ sessionID: String) -> (stream: AsyncStream<SpooledSegment>, token: UInt64)? {
        let (stream, continuation) = AsyncStream.makeStream(of: SpooledSegment.self)
        let token = tokens.withLockedValue { $0 += 1; return $0 }
        let found = entries.withLockedValue { all -> (previous: AsyncStream<SpooledSegment>.Continuation?, live: Bool)? in
            guard var entry = all[sessionID] else { return nil }
            let previous = entry.follower
            let live = entry.summary == nil
            entry.follower = live ? continuation : nil
            entry.followerToken = token
            all[sessionID] = entry
            return (previous, live)
        }
        guard let found else { return nil }
        found.previous?.finish()
        if !found.live { continuation.finish() }
        return (stream, token)
    }

    /// Ends the follower if it is still the one `token` named.
    func unfollow(_ sessionID: String, token: UInt64) {
        let follower = entries.withLockedValue { all -> AsyncStream<SpooledSegment>.Continuation? in
            guard let entry = all[sessionID], entry.followerToken == token else { return nil }
            all[sessionID]?.follower = nil
            return entry.follower
        }
        follower?.finish()
    }
}
