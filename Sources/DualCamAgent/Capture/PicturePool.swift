import DualCamCore
import Foundation

/// Picture buffers a source fills frame after frame. Each comes back when the last frame
/// holding it is gone (once encoded, or dropped), so capture allocates no planes per
/// frame (3 MB at 1080p, each faulted in afresh and then left in malloc's arenas), and
/// no more pictures are alive at once than the pool lends.
final class PicturePool: @unchecked Sendable {
    // Invariant: `spare` and `lent` are touched only while `condition` is locked.
    private let condition = NSCondition()
    private var spare: [YUV420Image] = []
    private var lent = 0
    let width: Int
    let height: Int
    /// The most pictures out at once: `take` waits for one to come back beyond it.
    let limit: Int
    /// Rows padded to a multiple of this (1: tight), for writers that need it (swscale).
    let strideAlignment: Int

    init(width: Int, height: Int, limit: Int, strideAlignment: Int = 1) {
        precondition(limit > 0, "a picture pool must lend at least one picture")
        self.width = width
        self.height = height
        self.limit = limit
        self.strideAlignment = strideAlignment
    }

    /// A picture to draw or read into; it still holds whatever was last put
    /// in it. Waits while `limit` pictures are out.
    func take() -> CapturedPicture {
        condition.lock()
        while lent >= limit { condition.wait() }
        lent += 1
        let image = spare.popLast()
        condition.unlock()
        return CapturedPicture(image ?? YUV420Image(width: width, height: height, strideAlignment: strideAlignment), pool: self)
    }

    /// Pictures lent and not yet back.
    var outstanding: Int {
        condition.lock()
        defer { condition.unlock() }
        return lent
    }

    /// Takes over the caller's reference: the planes must be uniquely the pool's by the
    /// time a waiting `take` can hand them out, or filling them would copy them.
    fileprivate func giveBack(_ image: consuming YUV420Image) {
        condition.lock()
        lent -= 1
        spare.append(consume image)
        condition.signal()
        condition.unlock()
    }
}

/// A captured picture, handed along the pipeline by reference so its planes are never
/// copied on the way to the encoder. It goes back to its pool when the last reference
/// goes.
///
/// Filled once, then only read: `update` is for the thread that took it from the pool,
/// before it hands it on (in a CapturedFrame, through a queue's lock).
final class CapturedPicture {
    private var storage: YUV420Image?
    private let pool: PicturePool

    fileprivate init(_ image: YUV420Image, pool: PicturePool) {
        storage = image
        self.pool = pool
    }

    var image: YUV420Image { storage! }

    /// Writes into the planes in place (the picture holds their only reference).
    func update<Result>(_ body: (inout YUV420Image) throws -> Result) rethrows -> Result {
        try body(&storage!)
    }

    deinit {
        // Moved out, not copied: the pool must hold the planes' only reference, or the
        // next `update` would copy them (copy-on-write) instead of overwriting them.
        if let image = storage.take() { pool.giveBack(consume image) }
    }
}
