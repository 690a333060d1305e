import DualCamNet
import Foundation
import NIOConcurrencyHelpers

/// The agent's pairing window: while open, an unpaired coordinator may connect, but only
/// to pair. It closes after one pairing, on expiry, or when whoever opened it goes away.
public final class PairingWindow: Sendable {
    public enum Event: Sendable, Equatable {
        case opened(seconds: Int)
        case code(String, coordinatorName: String, coordinator: DeviceID)
        case paired(coordinatorName: String, coordinator: DeviceID)
        case declined(coordinatorName: String)
        case closed(String)
    }

    private struct State {
        var generation = 0
        var open = false
        var watchers: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    public var isOpen: Bool { state.withLockedValue { $0.open } }

    /// Opens (or reopens) the window for `seconds`.
    public func open(seconds: Int) {
        let generation = state.withLockedValue { s -> Int in
            s.generation += 1
            s.open = true
            return s.generation
        }
        publish(.opened(seconds: seconds))
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(seconds) * 1_000_000_000)
            self?.close("the pairing window expired after \(seconds) s", onlyGeneration: generation)
        }
    }

    public func close(_ reason: String, onlyGeneration: Int? = nil) {
        let wasOpen = state.withLockedValue { s -> Bool in
            if let only = onlyGeneration, only != s.generation { return false }
            defer { s.open = false }
            return s.open
        }
        if wasOpen { publish(.closed(reason)) }
    }

    public func publish(_ event: Event) {
        let watchers = state.withLockedValue { Array($0.watchers.values) }
        for watcher in watchers { watcher.yield(event) }
    }

    /// Events from now on, until the caller stops iterating.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let key = state.withLockedValue { s -> Int in
            s.nextWatcher += 1
            s.watchers[s.nextWatcher] = continuation
            return s.nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.watchers.removeValue(forKey: key) }
        }
        return stream
    }
}
