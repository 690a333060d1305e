import Foundation

/// Runs blocking, CPU-bound work (an encoder measurement) on a thread of its own, so that
/// it does not hold one of Swift's few cooperative threads for seconds.
enum Blocking {
    static func run(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await result(work)
    }

    static func result<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
            let thread = Thread {
                do {
                    done.resume(returning: try work())
                } catch {
                    done.resume(throwing: error)
                }
            }
            thread.name = "dualcam-blocking"
            thread.start()
        }
    }
}
