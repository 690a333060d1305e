import DualCamCore
import DualCamMedia
import Foundation

/// Standard input, read for the whole life of the process by a thread of its own. A
/// producer such as rpicam-vid writes continuously; if nobody read between recordings
/// it would block on a full pipe and then hand over a burst of stale frames, all
/// stamped "now". So frames read while no recording listens are dropped, and those read
/// during a recording are stamped with their arrival on the agent's clock, less the
/// producer's latency.
final class PipeInput: @unchecked Sendable {
    // Invariant: `frames`, `listening`, `ended`, and `endError` are touched only
    // while `condition` is locked; `stamper` only by the reading thread.
    private let condition = NSCondition()
    private var frames: [CapturedFrame] = []
    private var listening = false
    private var ended = false
    private var endError: Error?
    /// One: the kernel's pipe and the encode queue behind already buffer, and at 1080p
    /// every frame held here is 3 MB resident (measured with `dualcam-bench capture`).
    private let capacity = 1
    /// Pictures read and not yet encoded, wherever they wait: one being encoded while the
    /// next is read (and then waits for the encoder). Beyond that the reader waits for a
    /// picture to come back, holding the producer back, instead of reading ahead into
    /// 3 MB more per frame at 1080p. Reading a frame takes a few ms, far less than
    /// encoding one, so the encoder never waits for the reader; a producer that writes
    /// in real time waits only if one encode outlasts two frame periods, and then keeps
    /// the frame in its own buffers (rpicam-vid has several).
    static let picturesInFlight = 2

    let format: SourceConfig.StdinFormat
    let width: Int
    let height: Int

    private static let lock = NSLock()
    // Invariant: read and written only under `lock`; there is one standard input.
    nonisolated(unsafe) private static var instance: PipeInput?

    /// The process's one reader, started at first use, listening.
    static func shared(format: SourceConfig.StdinFormat, width: Int, height: Int, rate: FrameRate,
                       clock: AgentClock, latencyNanoseconds: Int64) -> PipeInput {
        lock.lock()
        defer { lock.unlock() }
        if let instance { return instance }
        let input = PipeInput(format: format, width: width, height: height, rate: rate)
        instance = input
        // The first caller is a recording about to listen. Listening before the thread
        // starts keeps a short input (a file piped in whole, which fits in the pipe's
        // buffer) from being read and dropped before the recording says it listens.
        input.listen(true)
        let thread = Thread { input.read(clock: clock, latency: latencyNanoseconds) }
        thread.name = "dualcam-stdin"
        thread.start()
        return input
    }

    private init(format: SourceConfig.StdinFormat, width: Int, height: Int, rate: FrameRate) {
        self.stamper = ArrivalStamper(rate: rate)
        self.format = format
        self.width = width
        self.height = height
    }

    /// Stops the process's reader handing frames to a recording that failed before its
    /// source was read from (it then drops them again, keeping the producer flowing).
    static func stopListening() {
        lock.lock()
        let input = instance
        lock.unlock()
        input?.listen(false)
    }

    func listen(_ on: Bool) {
        condition.lock()
        listening = on
        if !on { frames.removeAll() }
        condition.broadcast()
        condition.unlock()
    }

    /// The next frame read while listening; nil once the input has ended, or when
    /// `timeoutSeconds` pass without one (the caller checks its stop instant).
    func next(timeoutSeconds: Double) throws -> (frame: CapturedFrame?, ended: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        while frames.isEmpty && !ended {
            if !condition.wait(until: deadline) { return (nil, false) }
        }
        if !frames.isEmpty {
            condition.broadcast()
            return (frames.removeFirst(), false)
        }
        if let endError { throw endError }
        return (nil, true)
    }

    private func deliver(_ frame: CapturedFrame) {
        condition.lock()
        defer { condition.unlock() }
        guard listening else { return }
        // While a recording listens, a full buffer holds the reader (and so the producer)
        // back: the consumer, not the pipe, decides what is lost.
        while listening && frames.count >= capacity { condition.wait() }
        guard listening else { return }
        frames.append(frame)
        condition.signal()
    }

    private func finish(_ error: Error?) {
        condition.lock()
        ended = true
        endError = error
        condition.broadcast()
        condition.unlock()
    }

    /// Stamps frames by count at the nominal rate, steered to arrivals (see ArrivalStamper).
    private var stamper: ArrivalStamper

    private func stamped(_ payload: FramePayload, arrival: Int64) -> CapturedFrame {
        let (instant, lost) = stamper.stamp(arrival: arrival)
        return CapturedFrame(payload: payload, localCaptureNanoseconds: instant, droppedBefore: lost)
    }

    private func read(clock: AgentClock, latency: Int64) {
        do {
            switch format {
            case .yuv420p: try readPictures(clock: clock, latency: latency)
            case .h264: try readH264(clock: clock, latency: latency)
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    private func readPictures(clock: AgentClock, latency: Int64) throws {
        // Tight strides, as the producer writes the planes back to back.
        let pool = PicturePool(width: width, height: height, limit: Self.picturesInFlight)
        while true {
            let picture = pool.take()
            // Read straight into the picture's planes: the pipe's bytes are copied once,
            // into the frame the encoder reads.
            let whole = try picture.update { image in
                try fill(&image.y, partOfPicture: false)
                    && fill(&image.cb, partOfPicture: true) && fill(&image.cr, partOfPicture: true)
            }
            guard whole else { return }
            deliver(stamped(.picture(picture), arrival: clock.localNow() - latency))
        }
    }

    /// Fills `buffer` from the pipe; false at a clean end of input (before a picture
    /// began), an error when the input ends inside one.
    private func fill(_ buffer: inout [UInt8], partOfPicture: Bool) throws -> Bool {
        var filled = 0
        let count = buffer.count
        while filled < count {
            let n = try Self.readInput(into: &buffer, at: filled)
            if n == 0 {
                if filled == 0 && !partOfPicture { return false }
                throw SourceError("standard input ended inside a picture (\(filled) of \(count) bytes): "
                    + "check --size matches the producer's (rpicam-vid --width/--height) and that it writes yuv420")
            }
            filled += n
        }
        return true
    }

    /// One read(2) of standard input into `buffer` from `offset` on, retried when a
    /// signal interrupts it; 0 at the end of input.
    private static func readInput(into buffer: inout [UInt8], at offset: Int) throws -> Int {
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress! + offset, $0.count - offset) }
            if n >= 0 { return n }
            if errno != EINTR { throw SourceError("reading standard input: \(String(cString: strerror(errno)))") }
        }
    }

    private func readH264(clock: AgentClock, latency: Int64) throws {
        let parser = try H264StreamParser()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try Self.readInput(into: &chunk, at: 0)
            let units = n == 0 ? parser.finish()
                : parser.feed(Array(chunk[0..<n]), arrivalNanoseconds: clock.localNow() - latency)
            for unit in units {
                deliver(stamped(.h264(unit.data), arrival: unit.arrivalNanoseconds))
            }
            if n == 0 { return }
        }
    }
}

/// Problems of a frame source that is not a camera (the pipe, the synthetic pattern).
public struct SourceError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Frames from standard input for one recording.
struct StdinSource: FrameSource {
    let input: PipeInput
    let rate: FrameRate
    let clock: AgentClock

    /// Whether `rpicam-vid --sync client` is steered onto the grid (`--pi-sync-port`).
    let steered: Bool

    init(input: PipeInput, rate: FrameRate, clock: AgentClock, steered: Bool = false) {
        self.input = input
        self.rate = rate
        self.clock = clock
        self.steered = steered
        input.listen(true)
    }

    var description: String {
        "stdin \(input.format.rawValue) \(input.width)x\(input.height)"
            + (steered ? ", steered onto the shared grid through rpicam-vid --sync client" : "")
    }
    var codedSize: (width: Int, height: Int) { (input.width, input.height) }
    var deliversH264: Bool { input.format == .h264 }
    var isPaced: Bool { false }

    mutating func next(stopLocalNanoseconds: () -> Int64?) throws -> CapturedFrame? {
        if let frame = try nextBeforeStop(stopLocalNanoseconds) { return frame }
        // The recording is over: frames read from now on are dropped, not kept.
        input.listen(false)
        return nil
    }

    private func nextBeforeStop(_ stopLocalNanoseconds: () -> Int64?) throws -> CapturedFrame? {
        while true {
            if let stop = stopLocalNanoseconds(), clock.localNow() >= stop + rate.periodNanoseconds { return nil }
            let (frame, ended) = try input.next(timeoutSeconds: 0.5)
            if ended { return nil }
            guard let frame else { continue }
            if let stop = stopLocalNanoseconds(), frame.localCaptureNanoseconds >= stop - rate.periodNanoseconds / 2 {
                return nil
            }
            return frame
        }
    }
}
