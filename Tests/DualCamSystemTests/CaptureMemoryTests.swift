@testable import DualCamAgent
import DualCamCore
import Foundation
import NIOConcurrencyHelpers
import Testing

/// What keeps the agent's resident memory down on the capture side: pictures reused in
/// place, never more of them alive than needed, no ICU for one timestamp.
struct CaptureMemoryTests {
    static func lumaAddress(_ picture: CapturedPicture) -> Int {
        picture.update { image in image.y.withUnsafeMutableBufferPointer { Int(bitPattern: $0.baseAddress) } }
    }

    @Test func aPictureComesBackToItsPoolAndIsFilledInPlace() {
        let pool = PicturePool(width: 64, height: 32, limit: 2)
        var first = 0
        do {
            let picture = pool.take()
            first = Self.lumaAddress(picture)
            let frame = CapturedFrame(payload: .picture(picture), localCaptureNanoseconds: 0, droppedBefore: 0)
            // What the encoder does: reads a copy of the image, which it drops.
            guard case .picture(let queued) = frame.payload else { Issue.record("not a picture"); return }
            #expect(queued.image.width == 64 && pool.outstanding == 1)
        }
        #expect(pool.outstanding == 0)
        // The same planes, written without a copy-on-write copy.
        #expect(Self.lumaAddress(pool.take()) == first)
    }

    @Test func takeWaitsWhileEveryPictureIsOut() {
        let pool = PicturePool(width: 16, height: 8, limit: 2)
        var held = [pool.take(), pool.take()]
        let taken = DispatchSemaphore(value: 0)
        Thread {
            _ = pool.take()
            taken.signal()
        }.start()
        #expect(taken.wait(timeout: .now() + 0.2) == .timedOut, "a third picture while two are out")
        held.removeFirst()
        #expect(taken.wait(timeout: .now() + 10) == .success, "the picture given back is lent again")
        #expect(held.count == 1)
    }

    /// Producer and encoder on two threads, as in a recording: every frame arrives
    /// intact and the two pictures are reused throughout, never copied.
    @Test func picturesCirculateBetweenThreadsWithoutCopies() throws {
        let pool = PicturePool(width: 64, height: 32, limit: 2)
        let queue = FrameQueue(capacity: 2)
        let addresses = NIOLockedValueBox(Set<Int>())
        let count = 300
        Thread {
            for k in 0..<count {
                let picture = pool.take()
                let address = picture.update { image in
                    image.y[0] = UInt8(k % 256)
                    return image.y.withUnsafeMutableBufferPointer { Int(bitPattern: $0.baseAddress) }
                }
                addresses.withLockedValue { _ = $0.insert(address) }
                queue.push(CapturedFrame(payload: .picture(picture), localCaptureNanoseconds: Int64(k), droppedBefore: 0),
                           wait: true)
            }
            queue.end(error: nil)
        }.start()
        var received = 0
        while let frame = try queue.pop() {
            guard case .picture(let picture) = frame.payload else { continue }
            #expect(Int(picture.image.y[0]) == Int(frame.localCaptureNanoseconds) % 256)
            received += 1
        }
        #expect(received == count)
        // Never a third picture: 300 frames through the pool's two. (Which of the two each
        // frame gets is the threads' timing: a consumer that always gives a picture back
        // before the producer takes the next one circulates just one, as CI saw once.)
        #expect((1...2).contains(addresses.withLockedValue { $0.count }), "\(addresses.withLockedValue { $0.count }) pictures")
    }

    @Test func aCameraQueueHoldsTwelveMebibytesOfPictures() {
        #expect(RecordingPipeline.pacedQueueCapacity(width: 1920, height: 1080, rate: .fps30) == 4)
        #expect(RecordingPipeline.pacedQueueCapacity(width: 1280, height: 720, rate: .fps30) == 9)
        #expect(RecordingPipeline.pacedQueueCapacity(width: 3840, height: 2160, rate: FrameRate(60)) == 2)
        // Half a second at most: small pictures at a low rate.
        #expect(RecordingPipeline.pacedQueueCapacity(width: 320, height: 180, rate: FrameRate(10)) == 5)
        #expect(RecordingPipeline.queueCapacity(RecordingSettings(width: 1920, height: 1080), paced: false) == 2)
    }

    @Test func sessionStampsReadAsADateFormatterWroteThem() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        for seconds in [0, 951_782_400, 1_700_000_000, 1_709_164_799, 4_102_444_799, Int(Date().timeIntervalSince1970)] {
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(SessionStamp.text(unixSeconds: seconds) == expected, "\(seconds)")
        }
        #expect(SessionStamp.text(unixSeconds: 1_700_000_000) == "20231114-221320")
    }
}
