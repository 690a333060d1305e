import DualCamNet
import Foundation
import NIOConcurrencyHelpers

/// The agent's pairing window: while open, an unpaired coordinator may connect, but only
/// to pair, and only with the window's secret code. It closes after one pairing, on
/// expiry, when whoever opened it goes away, or after `maxAttempts` wrong codes.
public final class PairingWindow: Sendable {
    public enum Event: Sendable, Equatable {
        case opened(seconds: Int, code: String)
        case paired(coordinatorName: String, coordinator: DeviceID)
        case declined(coordinatorName: String, coordinator: DeviceID, left: Int)
        case closed(String)
    }

    /// Wrong codes a window allows: with a six-digit code, an attacker's chance per window
    /// is 5 in 10⁶.
    public static let maxAttempts = 5

    private struct State {
        var generation = 0
        var open = false
        var code = ""
        var attempts = 0
        var watchers: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    public var isOpen: Bool { state.withLockedValue { $0.open } }

    public var attemptsLeft: Int { state.withLockedValue { Self.maxAttempts - $0.attempts } }

    /// Opens (or reopens) the window for `seconds` with a fresh code, which it returns.
    @discardableResult
    public func open(seconds: Int) -> String {
        let code = PairingCode.random()
        let generation = state.withLockedValue { s -> Int in
            s.generation += 1
            s.open = true
            s.code = code
            s.attempts = 0
            return s.generation
        }
        publish(.opened(seconds: seconds, code: code))
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(seconds) * 1_000_000_000)
            self?.close("the pairing window expired after \(seconds) s", onlyGeneration: generation)
        }
        return code
    }

    /// Takes one attempt for a coordinator about to get the agent's share: the code to
    /// use and the window it belongs to, or nil when the window is closed or spent.
    public func beginAttempt() -> (code: String, generation: Int)? {
        state.withLockedValue { s in
            guard s.open, s.attempts < Self.maxAttempts else { return nil }
            s.attempts += 1
            return (s.code, s.generation)
        }
    }

    /// An attempt that did not pair (a wrong code, or a coordinator that went away after
    /// our share): when it was the window's last, the window closes; returns the reason then.
    public func attemptFailed(generation: Int) -> String? {
        let spent = state.withLockedValue { $0.open && $0.generation == generation && $0.attempts >= Self.maxAttempts }
        guard spent else { return nil }
        let reason = "closed after \(Self.maxAttempts) attempts with a wrong code; run `dualcam-agent pair` on the agent "
            + "to open a new window with a new code"
        close(reason, onlyGeneration: generation)
        return reason
    }

    public func close(_ reason: String, onlyGeneration: Int? = nil) {
        let wasOpen = state.withLockedValue { s -> Bool in
            if let only = onlyGeneration, only != s.generation { return false }
            defer {
                s.open = false
                s.code = ""
            }
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
