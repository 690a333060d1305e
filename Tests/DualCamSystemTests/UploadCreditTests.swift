@testable import DualCamAgent
import DualCamProtocol
import NIOConcurrencyHelpers
import Testing

/// The agent's upload window: chunks wait for acknowledgements, never for memory.
struct UploadCreditTests {
    func ack(_ index: UInt32, _ bytes: UInt64, durable: Bool = false) -> Dualcam_V1_SegmentAck {
        var ack = Dualcam_V1_SegmentAck()
        ack.index = index
        ack.receivedBytes = bytes
        ack.durable = durable
        return ack
    }

    /// True when `reserve` finishes within 200 ms. One that does not stays waiting until
    /// room is made or the credit is closed.
    func admitted(_ credit: UploadCredit, _ bytes: UInt64, of segment: UInt32) async -> Bool {
        let finished = NIOLockedValueBox(false)
        Task {
            await credit.reserve(bytes, of: segment)
            finished.withLockedValue { $0 = true }
        }
        try? await Task.sleep(nanoseconds: 200_000_000)
        return finished.withLockedValue { $0 }
    }

    @Test func chunksWaitForRoomAndAcksMakeIt() async throws {
        let chunk: UInt64 = 256 * 1024
        let credit = UploadCredit()
        credit.setWindow(announced: 2 * chunk)
        credit.begin(segment: 0, resumeOffset: 0)
        #expect(await admitted(credit, chunk, of: 0))
        #expect(await admitted(credit, chunk, of: 0))
        let third = NIOLockedValueBox(false)
        Task {
            await credit.reserve(chunk, of: 0)
            third.withLockedValue { $0 = true }
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(!third.withLockedValue { $0 }, "a third chunk went out with the window full")
        // Acknowledging less than a chunk does not make room for one.
        credit.acknowledge(ack(0, chunk / 2))
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(!third.withLockedValue { $0 })
        credit.acknowledge(ack(0, chunk))
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(third.withLockedValue { $0 })
        // A durable ack ends the transfer's count altogether.
        credit.acknowledge(ack(0, 3 * chunk, durable: true))
        credit.begin(segment: 1, resumeOffset: 0)
        #expect(await admitted(credit, 2 * chunk, of: 1))
        #expect(!(await admitted(credit, chunk, of: 1)))
        credit.close()
    }

    @Test func closingReleasesEveryWaiter() async {
        let credit = UploadCredit()
        credit.setWindow(announced: 256 * 1024)
        credit.begin(segment: 0, resumeOffset: 0)
        await credit.reserve(256 * 1024, of: 0)
        let waiting = Task { await credit.reserve(256 * 1024, of: 0) }
        credit.close()
        await waiting.value
    }
}
