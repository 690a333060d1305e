import DualCamProtocol
import NIOConcurrencyHelpers

/// The agent's side of the upload window (PROTOCOL.md §8.3): before a chunk goes out the
/// uploader waits until the coordinator's acknowledgements leave room for it, so a slow
/// link or a slow coordinator disk holds segments in the spool on disk, never in memory.
final class UploadCredit: Sendable {
    private struct Transfer {
        var sent: UInt64 = 0
        var acknowledged: UInt64 = 0
        var resumeOffset: UInt64 = 0
    }

    private struct State {
        var window: UInt64
        var transfers: [UInt32: Transfer] = [:]
        var waiters: [(needed: UInt64, segment: UInt32, continuation: CheckedContinuation<Void, Never>)] = []
        var closed = false

        var inFlight: UInt64 { transfers.values.reduce(0) { $0 + ($1.sent - min($1.sent, $1.acknowledged)) } }
    }

    private let state: NIOLockedValueBox<State>

    init(window: UInt64 = WireProtocol.defaultUploadWindowBytes) {
        state = NIOLockedValueBox(State(window: window))
    }

    /// The window the coordinator announced in Hello.
    func setWindow(announced: UInt64) {
        let ready = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.window = WireProtocol.uploadWindow(announced: announced)
            return Self.release(&s)
        }
        ready.forEach { $0.resume() }
    }

    func begin(segment: UInt32, resumeOffset: UInt64) {
        state.withLockedValue { $0.transfers[segment] = Transfer(resumeOffset: resumeOffset) }
    }

    /// Waits for room for `bytes` more of `segment`, then counts them as in flight.
    func reserve(_ bytes: UInt64, of segment: UInt32) async {
        await withCheckedContinuation { continuation in
            let admitted = state.withLockedValue { s -> Bool in
                if s.closed || s.inFlight + bytes <= s.window {
                    s.transfers[segment, default: Transfer()].sent += bytes
                    return true
                }
                s.waiters.append((bytes, segment, continuation))
                return false
            }
            if admitted { continuation.resume() }
        }
        // A waiter released by `acknowledge` had its bytes counted there.
    }

    func acknowledge(_ ack: Dualcam_V1_SegmentAck) {
        let ready = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            if ack.durable {
                s.transfers[ack.index] = nil
            } else if var transfer = s.transfers[ack.index] {
                let counted = ack.receivedBytes - min(ack.receivedBytes, transfer.resumeOffset)
                transfer.acknowledged = max(transfer.acknowledged, counted)
                s.transfers[ack.index] = transfer
            }
            return Self.release(&s)
        }
        ready.forEach { $0.resume() }
    }

    /// The connection is gone: nobody waits any longer.
    func close() {
        let ready = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            defer { s.waiters.removeAll() }
            return s.waiters.map(\.continuation)
        }
        ready.forEach { $0.resume() }
    }

    /// Admits waiters in order while they fit; the caller resumes them outside the lock.
    private static func release(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        while let first = s.waiters.first, s.inFlight + first.needed <= s.window {
            s.waiters.removeFirst()
            s.transfers[first.segment, default: Transfer()].sent += first.needed
            ready.append(first.continuation)
        }
        return ready
    }
}
