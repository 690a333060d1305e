import CLinux
import Glibc

/// Nice values per thread (Linux keeps them per thread, and a new thread inherits its
/// creator's): work that may wait runs below work that may not. Raising a lowered thread
/// back would need privileges, so only threads of their own are lowered.
public enum ThreadNiceness {
    /// Lowers the calling thread, and the threads it starts from now on, to `nice`
    /// (0-19). For a thread that is the work's own; returns whether it was lowered.
    @discardableResult
    public static func lowerThisThread(to nice: Int32) -> Bool {
        dc_lower_this_thread(nice) == 0
    }

    /// Runs `body` on a thread of its own lowered to `nice`, and waits for it. A codec
    /// opened there starts its worker threads there: the work they do from then on runs
    /// at that priority, whichever thread later feeds them. The caller's thread is left as
    /// it was. Returns what `body` returned, or rethrows what it threw.
    static func run<T>(nice: Int32, _ body: () throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            var result: Result<T, any Error>?
            let job = Job(nice: nice) { result = Result { try body() } }
            let context = Unmanaged.passRetained(job).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { context in
                let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
                _ = dc_lower_this_thread(job.nice)
                job.work()
                return nil
            }, context)
            guard created == 0 else {
                // No thread: the work runs here, at this thread's priority.
                Unmanaged<Job>.fromOpaque(context).release()
                return try body()
            }
            pthread_join(thread, nil)
            // `result` was set by the thread, which has ended (joined above).
            return try result!.get()
        }
    }

    // Invariant: `work` runs on the lowered thread only, between its creation and the
    // join the creating thread waits in; nothing else touches what it captures meanwhile.
    private final class Job: @unchecked Sendable {
        let nice: Int32
        let work: () -> Void
        init(nice: Int32, work: @escaping () -> Void) {
            self.nice = nice
            self.work = work
        }
    }
}
