import DualCamCore
import Glibc

/// A webcam's frame timing cannot be steered, but it follows from when streaming starts.
/// So the capture is started once to measure the start latency, stopped, and started
/// again at the instant that puts its first frame on the grid (`StartAlignment`). Whether
/// the camera's sensor really restarts with the stream (vivid's does; some webcams'
/// sensors run on regardless) is what the report's aligned phase shows.
extension V4L2Capture {
    /// Starts streaming aligned onto `alignment`'s grid; call instead of `start()`.
    /// `toGrid` and `fromGrid` map CLOCK_MONOTONIC instants onto the grid's clock and back.
    /// The two first frames are let go (the camera is warming up anyway).
    public func startAligned(_ alignment: StartAlignment, toGrid: (Int64) -> Int64, fromGrid: (Int64) -> Int64,
                             timeoutMilliseconds: Int32) throws -> StartAlignment.Report {
        var streamOn = try start()
        var picture = try firstPicture(timeoutMilliseconds: timeoutMilliseconds, what: "measuring its start latency")
        let unaligned = alignment.phase(ofStampNanoseconds: toGrid(picture.monotonicNanoseconds))
        var report = StartAlignment.Report(latencyNanoseconds: 0, unalignedPhaseNanoseconds: unaligned,
                                           alignedPhaseNanoseconds: unaligned)
        // A camera's very first start is often slower than the next (caches, power-up): a
        // start that missed is measured again, up to `StartAlignment.mostStarts` in all.
        for _ in 1..<StartAlignment.mostStarts {
            report.latencyNanoseconds = alignment.latency(streamOnNanoseconds: toGrid(streamOn),
                                                          firstStampNanoseconds: toGrid(picture.monotonicNanoseconds),
                                                          firstSequence: picture.sequence)
            stop()
            let plan = alignment.plan(latencyNanoseconds: report.latencyNanoseconds, nowNanoseconds: toGrid(Self.monotonicNow()))
            Self.sleep(untilMonotonic: fromGrid(plan.streamOnNanoseconds))
            streamOn = try start()
            picture = try firstPicture(timeoutMilliseconds: timeoutMilliseconds, what: "after its aligned start")
            report.alignedPhaseNanoseconds = alignment.phase(ofStampNanoseconds: toGrid(picture.monotonicNanoseconds))
            report.starts += 1
            if alignment.isOnGrid(report.alignedPhaseNanoseconds) { break }
        }
        return report
    }

    private func firstPicture(timeoutMilliseconds: Int32, what: String) throws -> CameraPicture {
        guard let picture = try skipNext(timeoutMilliseconds: timeoutMilliseconds) else {
            stop()
            throw V4L2Error(code: 0, call: "capture", device: path,
                            detail: "no frame within \(timeoutMilliseconds) ms \(what); is the camera delivering?")
        }
        return picture
    }

    /// A sleeping thread wakes late by the timer's slack and the scheduler's delay (half a
    /// millisecond in the emulated guest, every time): so it sleeps until 2 ms before and
    /// spins the rest, once per Prepare.
    private static func sleep(untilMonotonic instant: Int64) {
        let early = instant - 2_000_000
        var until = timespec(tv_sec: Int(early / 1_000_000_000), tv_nsec: Int(early % 1_000_000_000))
        // Interrupted by a signal: sleep again to the same absolute instant.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
        while monotonicNow() < instant {}
    }
}
