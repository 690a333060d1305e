import DualCamCore
import Testing

/// The live stream's backlog (issue 33): a slow uplink drops the stream's pictures,
/// newest wins, from a key frame; the backoff between tries doubles to 30 s.
@Suite struct StreamBacklogTests {
    @Test func itStartsAtAKeyframeAndNeverPassesItsLimit() {
        var backlog = StreamBacklog<Int>(limitBytes: 1_000)
        backlog.push(0, bytes: 100, video: false, keyframe: false)  // sound before the first picture
        backlog.push(1, bytes: 100, video: true, keyframe: false)
        #expect(backlog.isEmpty && backlog.droppedVideoFrames == 1)
        backlog.push(2, bytes: 300, video: true, keyframe: true)
        backlog.push(3, bytes: 50, video: false, keyframe: false)
        backlog.push(4, bytes: 300, video: true, keyframe: false)
        #expect(backlog.count == 3 && backlog.queuedBytes == 650)
        #expect(backlog.pop() == 2)
        // A stalled uplink: the limit would be passed, so everything queued goes, and the
        // stream picks up at the next key frame only.
        backlog.push(5, bytes: 300, video: true, keyframe: false)
        backlog.push(6, bytes: 400, video: true, keyframe: false)
        #expect(backlog.waitingForKeyframe && backlog.isEmpty && backlog.droppedVideoFrames == 4)
        backlog.push(7, bytes: 50, video: false, keyframe: false)
        backlog.push(8, bytes: 300, video: true, keyframe: true)
        #expect(backlog.pop() == 8 && backlog.pop() == nil)
        #expect(backlog.queuedBytes == 0)
    }

    @Test func aLongStreamKeepsItsMemoryBounded() {
        var backlog = StreamBacklog<[UInt8]>(limitBytes: 10_000)
        for n in 0..<100_000 {
            backlog.push([UInt8](repeating: 0, count: 100), bytes: 100, video: true, keyframe: n % 60 == 0)
            if n % 3 != 0 { _ = backlog.pop() }
            #expect(backlog.queuedBytes <= 10_000)
        }
        #expect(backlog.droppedVideoFrames > 0)
    }

    /// A slow uplink under the byte limit: once the oldest queued packet is more than the
    /// limit behind the newest, the queue goes and the stream resumes at a key frame, so
    /// the stream is never more than about that late, however few bytes the pictures are.
    @Test func aQueueThatFallsTooFarBehindIsDroppedWhateverItsBytes() {
        let second: Int64 = 1_000_000_000, frame = second / 30
        var backlog = StreamBacklog<Int>(limitBytes: 1_000_000, limitNanoseconds: 2 * second)
        var popped: [Int] = []
        // 30 pictures a second, a key frame every 2 s; the uplink takes one picture in three.
        for n in 0..<300 {
            backlog.push(n, bytes: 100, video: true, keyframe: n % 60 == 0, at: Int64(n) * frame)
            if n % 3 == 0, let item = backlog.pop() { popped.append(item) }
            if let oldest = popped.last, backlog.count > 0 {
                #expect(Int64(n - oldest) * frame <= 2 * second + frame, "picture \(n) queued behind \(oldest)")
            }
        }
        #expect(backlog.queuedBytes < 100 * 70 && backlog.droppedVideoFrames > 100)
        // Every drop resumed at a key frame: after each gap the first picture sent is one.
        for (a, b) in zip(popped, popped.dropFirst()) where b != a + 1 { #expect(b % 60 == 0, "resumed at \(b) after \(a)") }
    }

    @Test func theBackoffDoublesToHalfAMinuteAndResetsWhenLive() {
        var backoff = StreamBackoff()
        #expect((0..<8).map { _ in backoff.failed() } == [1, 2, 4, 8, 16, 30, 30, 30])
        backoff.connected()
        #expect(backoff.failed() == 1)
    }
}
