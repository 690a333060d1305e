import DualCamCore
import DualCamCoordinator

/// What one viewer wants to see, applied one change at a time and at most `interval`
/// apart: wishes that come faster replace each other, and only the latest is applied.
/// A change of format starts the new watch before ending the old, so the agents are not
/// told "nobody watches" in between (each such toggle restarts their preview encoders).
final class PreviewChoice: Sendable {
    static let intervalNanoseconds: Int64 = 250_000_000

    private let wishes: AsyncStream<PreviewHub.Format?>
    private let wish: AsyncStream<PreviewHub.Format?>.Continuation

    init() {
        (wishes, wish) = AsyncStream.makeStream(of: PreviewHub.Format?.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// nil: no pictures.
    func want(_ format: PreviewHub.Format?) {
        wish.yield(format)
    }

    func finish() {
        wish.finish()
    }

    /// Runs until `finish`, sending the pictures of the format wanted now with `send`.
    func apply(in hub: PreviewHub, clock: any TimeSource, _ send: @escaping @Sendable (AsyncStream<PreviewHub.Picture>) async throws -> Void) async throws {
        var current: PreviewHub.Format?
        var sender: Task<Void, Error>?
        defer { sender?.cancel() }
        for await format in wishes {
            guard format != current else { continue }
            let previous = sender
            sender = format.map { format in
                let pictures = hub.watch(format)
                return Task { try await send(pictures) }
            }
            previous?.cancel()
            current = format
            try await clock.sleep(nanoseconds: Self.intervalNanoseconds)
        }
    }
}
