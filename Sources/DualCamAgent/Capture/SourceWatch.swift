import DualCamMedia
import Foundation
import Logging
import NIOConcurrencyHelpers

/// Whether the agent's source can record, checked when the agent starts and every 2 s
/// after, so that a missing camera is found at the node rather than at the take: the log
/// says so once when it goes and once when it is back, and the agent's announcement and
/// its connections (HelloAck, then SourceStatus: PROTOCOL.md §4.1) carry the reason.
public final class SourceWatch: Sendable {
    /// Often enough that a camera plugged back is seen before anyone presses record again;
    /// a check is one open and one ioctl.
    static let intervalNanoseconds: UInt64 = 2_000_000_000

    let source: SourceConfig
    private let check: @Sendable (SourceConfig) -> String?
    private let state = NIOLockedValueBox(SourceWatchState())
    private let listeners = NIOLockedValueBox<[UInt64: @Sendable (String?) -> Void]>([:])
    private let nextListener = NIOLockedValueBox<UInt64>(0)
    private let logger: Logger

    /// `check`: why the source cannot record now, or nil (tests give their own).
    init(source: SourceConfig, logger: Logger, check: @escaping @Sendable (SourceConfig) -> String? = SourceWatch.problem) {
        self.source = source
        self.logger = logger
        self.check = check
    }

    /// Why a source cannot record now, as a sentence saying what to do; nil when it can.
    /// A pipe and the test pattern are always there: what feeds a pipe is the producer's.
    static func problem(_ source: SourceConfig) -> String? {
        switch source {
        case .synthetic, .stdin: nil
        case .v4l2(let device, _): V4L2Presence.problem(device)
        }
    }

    /// The reason the source cannot record, as last checked; nil when it can.
    var problem: String? { state.withLockedValue { $0.problem } }

    /// Checks now; logs and tells the listeners when the answer changed.
    func checkNow() {
        let found = check(source)
        guard let change = state.withLockedValue({ $0.observe(found) }) else { return }
        switch change {
        case .missing(let reason): logger.warning("\(reason)")
        case .back: logger.notice("\(source) is back: ready to record")
        }
        for listener in listeners.withLockedValue({ Array($0.values) }) { listener(found) }
    }

    /// Checks every 2 s until the task is cancelled (the first check is the caller's, at start).
    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: Self.intervalNanoseconds)
            guard !Task.isCancelled else { return }
            checkNow()
        }
    }

    /// Calls `listener` with the new problem (nil: ready) on every change, until
    /// `unlisten` with the returned token.
    func listen(_ listener: @escaping @Sendable (String?) -> Void) -> UInt64 {
        let token = nextListener.withLockedValue { $0 += 1; return $0 }
        listeners.withLockedValue { $0[token] = listener }
        return token
    }

    func unlisten(_ token: UInt64) {
        listeners.withLockedValue { $0[token] = nil }
    }
}

/// What one check's answer means against the ones before it: said once when the source
/// goes (or its reason changes), once when it is back, and nothing while it stays.
struct SourceWatchState: Equatable {
    enum Change: Equatable {
        /// Missing, or missing for another reason than before: the reason.
        case missing(String)
        case back
    }

    private(set) var problem: String?

    mutating func observe(_ found: String?) -> Change? {
        defer { problem = found }
        switch (problem, found) {
        case (nil, nil): return nil
        case (_?, nil): return .back
        case (let was, let now?): return was == now ? nil : .missing(now)
        }
    }
}
