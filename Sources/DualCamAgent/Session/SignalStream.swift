import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Termination signals as an async stream, so a recording can finish its current segment
/// instead of dying mid-write. A second signal while stopping ends the process at once.
public enum SignalStream {
    private static let lock = NSLock()
    // Invariant: appended to only under `lock`; never read (it only keeps sources alive).
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    public static func make(_ signals: [Int32]) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let received = NIOLockedValueBox(0)
        var made: [any DispatchSourceSignal] = []
        for sig in signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                let count = received.withLockedValue { $0 += 1; return $0 }
                if count > 1 {
                    FileHandle.standardError.write(Data("second signal: exiting now; completed segments are kept\n".utf8))
                    exit(130)
                }
                continuation.yield(())
            }
            source.resume()
            made.append(source)
        }
        // Kept for the life of the process: a cancelled source would let the signal kill it.
        lock.withLock { sources += made }
        return stream
    }
}
