import DualCamMedia
import Foundation

/// One camera's file decoded on a thread of its own, into a short queue: the decoders of
/// all cameras and the compositor's encoder then run at once on different cores, while
/// the queue's bound keeps memory to a few pictures per camera however long the file.
final class CameraFrameFeed: @unchecked Sendable {
    // Invariant: `queue`, `ended`, `failure` and `cancelled` are touched only while
    // holding `condition`; the demuxer and decoder live on the feed's thread alone.
    private let condition = NSCondition()
    private var queue: [DecodedFrame] = []
    private var ended = false
    private var failure: Error?
    private var cancelled = false
    private let capacity: Int
    let path: String

    init(path: String, capacity: Int = 4) {
        self.path = path
        self.capacity = capacity
        let thread = Thread { [self] in decodeAll() }
        thread.name = "dualcam.recompose.decode"
        thread.start()
    }

    /// The next picture in presentation order, nil at the end of the file; waits for the
    /// decoder. Throws what the decoder threw.
    func next() throws -> DecodedFrame? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !ended && failure == nil { condition.wait() }
        if let failure { throw failure }
        guard !queue.isEmpty else { return nil }
        condition.broadcast()
        return queue.removeFirst()
    }

    /// Stops the thread at its next picture (the consumer gave up).
    func cancel() {
        condition.lock()
        cancelled = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func decodeAll() {
        do {
            let demuxer = try MediaDemuxer(path: path)
            let decoder = try VideoDecoder(parameters: demuxer.videoParameters)
            while let packet = try demuxer.nextVideoPacket() {
                for frame in try decoder.decode(packet) { guard put(frame) else { return } }
            }
            for frame in try decoder.flush() { guard put(frame) else { return } }
            condition.withLock {
                ended = true
                condition.broadcast()
            }
        } catch {
            condition.withLock {
                failure = CoordinatorError("decoding \(path): \(error)")
                condition.broadcast()
            }
        }
    }

    /// Waits for room; false once cancelled.
    private func put(_ frame: DecodedFrame) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        queue.append(frame)
        condition.broadcast()
        return true
    }
}
