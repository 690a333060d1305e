import Foundation

/// Hands captured frames from the capture thread to the encode thread. Bounded, like a
/// camera's buffer ring: it absorbs the encoder's bursts (a keyframe, a busy CPU) so the
/// capture side keeps its schedule; when it is full the newest frame is dropped and
/// counted as encoder backlog, never blocking capture.
final class FrameQueue: @unchecked Sendable {
    // Invariant: `items`, `ended`, `endError` and `backlogDrops` are touched only while
    // `condition` is locked.
    private let condition = NSCondition()
    private var items: [CapturedFrame] = []
    private var ended = false
    private var endError: Error?
    private(set) var backlogDrops = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Returns false (and counts a drop) when the queue is full; false as well once the
    /// encode side has given up (`isEnded`).
    /// With `wait`, a full queue blocks the caller instead (a pipe: its producer is held
    /// back rather than losing frames).
    @discardableResult
    func push(_ frame: CapturedFrame, wait: Bool = false) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while wait && !ended && items.count >= capacity { condition.wait() }
        guard !ended else { return false }
        guard items.count < capacity else {
            backlogDrops += 1
            return false
        }
        items.append(frame)
        condition.signal()
        return true
    }

    func end(error: Error?) {
        condition.lock()
        ended = true
        endError = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next frame; nil once the capture side has ended and the queue is empty.
    func pop() throws -> CapturedFrame? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !ended { condition.wait() }
        if !items.isEmpty {
            condition.broadcast()
            return items.removeFirst()
        }
        if let endError { throw endError }
        return nil
    }

    var isEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    var depth: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count
    }

    var drops: Int {
        condition.lock()
        defer { condition.unlock() }
        return backlogDrops
    }
}
